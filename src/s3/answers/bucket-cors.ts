/**
 * GetBucketCors is answered from the rules set through the control plane (the only place they are
 * set, service-spec §4); a bucket without rules is NoSuchCORSConfiguration, as S3 answers it.
 */
import { S3Error } from '../../protocol/errors.js';
import { element, S3_XML_NAMESPACE, xmlDocument } from '../../protocol/xml.js';
import type { CorsRule } from '../../store/records.js';
import { sendXml } from '../respond.js';
import type { InBucket, Planned } from '../stages.js';

function elements(name: string, values: readonly string[] | undefined): string {
  return (values ?? []).map((value) => element(name, value)).join('');
}

export function renderCorsConfiguration(rules: readonly CorsRule[]): string {
  const body = rules
    .map(
      (rule) =>
        '<CORSRule>' +
        elements('AllowedHeader', rule.allowedHeaders) +
        elements('AllowedMethod', rule.allowedMethods) +
        elements('AllowedOrigin', rule.allowedOrigins) +
        elements('ExposeHeader', rule.exposeHeaders) +
        (rule.maxAgeSeconds === undefined ? '' : element('MaxAgeSeconds', String(rule.maxAgeSeconds))) +
        '</CORSRule>',
    )
    .join('');
  return xmlDocument(`<CORSConfiguration xmlns="${S3_XML_NAMESPACE}">${body}</CORSConfiguration>`);
}

export function answerGetBucketCors(stage: InBucket<Planned>): void {
  const rules = stage.entry.cors?.rules ?? [];
  if (rules.length === 0) throw new S3Error('NoSuchCORSConfiguration');
  sendXml(stage.exchange, 200, renderCorsConfiguration(rules));
}
