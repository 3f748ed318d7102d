import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** The namespace of every S3 response document. */
export const S3_XML_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** `<name>escaped text</name>` */
export function element(name: string, text: string): string {
  return `<${name}>${escapeXml(text)}</${name}>`;
}

export function xmlDocument(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${body}`;
}

/**
 * Parses a small client or backend document. Entities are not expanded (no entity-expansion
 * bombs); `arrays` names the elements that may repeat, so one occurrence still reads as a list.
 * Returns null when the text is not well-formed XML.
 */
export function parseXml(
  text: string,
  arrays: readonly string[] = [],
  options: { readonly keepWhitespace?: boolean } = {},
): Record<string, unknown> | null {
  if (text.trim() === '' || XMLValidator.validate(text) !== true) return null;
  const parser = new XMLParser({
    ignoreAttributes: true,
    removeNSPrefix: true,
    processEntities: false,
    parseTagValue: false,
    trimValues: options.keepWhitespace !== true,
    isArray: (name) => arrays.includes(name),
  });
  let parsed: unknown;
  try {
    parsed = parser.parse(text);
  } catch {
    // The validator accepts documents the parser then refuses (a DOCTYPE declaring an external
    // entity, say): those are not documents an S3 request or answer may carry either.
    return null;
  }
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
}

const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

/**
 * Text as an XML reader reads it: the five predefined entities and character references
 * (`&#38;`, `&#x26;`) replaced by what they stand for. parseXml leaves them as written; text that
 * names the same thing the store reads (an object key) must be decoded. Null when a reference is
 * not one XML allows (another entity, a character XML cannot carry).
 */
export function decodeXmlText(text: string): string | null {
  let valid = true;
  const decoded = text.replace(/&([^;&]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(';')) {
      valid = false;
      return whole;
    }
    const predefined = PREDEFINED_ENTITIES[name];
    if (predefined !== undefined) return predefined;
    const reference = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(name);
    const code =
      reference === null ? NaN : parseInt(reference[1] ?? reference[2] ?? '', reference[1] ? 16 : 10);
    if (!isXmlCharacter(code)) {
      valid = false;
      return whole;
    }
    return String.fromCodePoint(code);
  });
  return valid ? decoded : null;
}

/** A code point XML 1.0 documents may hold. */
function isXmlCharacter(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** A child element as an object, or undefined when it is missing or is plain text. */
export function childObject(node: unknown, name: string): Record<string, unknown> | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const child = (node as Record<string, unknown>)[name];
  return typeof child === 'object' && child !== null && !Array.isArray(child)
    ? (child as Record<string, unknown>)
    : undefined;
}

/** A child element's text, or undefined. */
export function childText(node: unknown, name: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const child = (node as Record<string, unknown>)[name];
  if (typeof child === 'string') return child;
  if (typeof child === 'number' || typeof child === 'boolean') return String(child);
  return undefined;
}

/** A repeatable child element as a list of objects. */
export function childList(node: unknown, name: string): Record<string, unknown>[] {
  if (typeof node !== 'object' || node === null) return [];
  const child = (node as Record<string, unknown>)[name];
  const items = Array.isArray(child) ? child : child === undefined ? [] : [child];
  return items.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}
