/** The S3 code of the error `call` throws (an S3Error's `code`), or undefined when it returns. */
export function thrownCode(call: () => unknown): string | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}
