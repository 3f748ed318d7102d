import { Option, type Command } from 'commander';
import { expectData, type Schemas } from '../api-client.js';
import { CommandContext } from '../context.js';
import { withExamples } from '../help.js';
import { positiveInteger } from '../option-values.js';
import { when } from '../output.js';
import { parseDuration } from '../time-input.js';

type PresignMethod = Schemas['PresignRequest']['method'];
/** Every method the API presigns; `satisfies` fails the type check when the API's list changes. */
const METHODS = Object.keys({
  GET: true,
  PUT: true,
  HEAD: true,
  DELETE: true,
  POST: true,
} satisfies Record<PresignMethod, true>) as PresignMethod[];

interface PresignOptions {
  credential: string;
  method: PresignMethod;
  expires?: string;
  contentType?: string;
  maxSize?: number;
  redirect?: string;
}

/** Server-side presigning with one of the organisation's credentials. */
export function registerPresignCommand(program: Command): void {
  withExamples(
    program
      .command('presign')
      .description('a URL (or, for POST, a browser form) that works without credentials until it expires')
      .argument('<bucket>')
      .argument('<key>', 'the object key; for POST it may end with ${filename}')
      .requiredOption(
        '--credential <access-key-id>',
        'the credential that signs it; its scope must allow the request',
      )
      .addOption(new Option('--method <method>', 'the request it allows').choices(METHODS).default('GET'))
      .option('--expires <duration>', 'how long it works: 90s, 15m, 12h, 7d (at most); default 1h')
      .option('--content-type <type>', 'the Content-Type the request must send (PUT, POST)')
      .addOption(
        new Option('--max-size <bytes>', 'POST: the largest file accepted').argParser(
          positiveInteger('--max-size'),
        ),
      )
      .option('--redirect <url>', 'POST: where the browser goes after the upload')
      .action(async (bucket: string, key: string, options: PresignOptions, command: Command) => {
        const context = CommandContext.of(command);
        const body: Schemas['PresignRequest'] = {
          key,
          method: options.method,
          accessKeyId: options.credential,
          ...(options.expires === undefined
            ? {}
            : { expiresIn: parseDuration(options.expires, '--expires') }),
          ...(options.contentType === undefined ? {} : { contentType: options.contentType }),
          ...(options.maxSize === undefined ? {} : { maxSizeBytes: options.maxSize }),
          ...(options.redirect === undefined ? {} : { successActionRedirect: options.redirect }),
        };
        const presigned = await expectData(
          context.api().POST('/v1/buckets/{bucket}/presign', { params: { path: { bucket } }, body }),
        );
        context.output.result(presigned, () => {
          context.output.line(presigned.url);
          for (const [name, value] of Object.entries(presigned.headers)) {
            context.output.note(`send header   ${name}: ${value}`);
          }
          // A form's fields are part of what it needs, unlike a URL's headers: stdout.
          for (const [name, value] of Object.entries(presigned.fields ?? {})) {
            context.output.line(`${name}=${value}`);
          }
          context.output.note(`${presigned.method}, valid until ${when(presigned.expiresAt)}`);
        });
      }),
    's3gw presign photos cat.jpg --credential GWK1ABCDEFGHIJKLMNOP',
    's3gw presign uploads incoming/report.pdf --credential GWK1ABCDEFGHIJKLMNOP --method PUT --content-type application/pdf --expires 15m',
    's3gw presign uploads "incoming/${filename}" --credential GWK1ABCDEFGHIJKLMNOP --method POST --max-size 10485760 --json',
  );
}
