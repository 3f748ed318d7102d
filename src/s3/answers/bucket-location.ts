/**
 * GetBucketLocation is answered by the gateway: clients use it to pick the signing region, and
 * the region they must sign for is the gateway's (config.s3.regions), not the backend's.
 * us-east-1 is an empty LocationConstraint, as S3 answers it.
 */
import { escapeXml, S3_XML_NAMESPACE, xmlDocument } from '../../protocol/xml.js';

export function renderBucketLocation(region: string): string {
  const constraint = region === 'us-east-1' ? '' : escapeXml(region);
  return xmlDocument(`<LocationConstraint xmlns="${S3_XML_NAMESPACE}">${constraint}</LocationConstraint>`);
}
