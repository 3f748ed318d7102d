/** The AWS SDK for JavaScript v3 against the gateway in front of Ceph RGW: see support/client-suite.ts. */
import net from 'node:net';
import { crc32 } from 'node:zlib';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { expect, it } from 'vitest';
import { awsChunkedBody, signedHeaders } from '../../support/s3/raw-requests.js';
import { describeClient, MiB } from '../support/client-suite.js';
import { awsSdkJsDriver, type AwsSdkJsDriver } from '../support/drivers/aws-sdk-js.js';
import { storedEtag } from '../support/world.js';

describeClient('aws-sdk-js', awsSdkJsDriver, {
  presignsSigV4: true,
  extra: (suite) => {
    it('CompleteMultipartUpload: the real ETag, though RGW 16 answers an empty one', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const s3 = (suite.driver() as AwsSdkJsDriver).client({
        key: world.tenant.readWrite,
        addressing: 'path',
      });
      const target = { Bucket: world.tenant.bucket, Key: 'etag/assembled.bin' };
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand(target));
      const first = await s3.send(
        new UploadPartCommand({ ...target, UploadId, PartNumber: 1, Body: Buffer.alloc(5 * MiB, 1) }),
      );
      const second = await s3.send(
        new UploadPartCommand({ ...target, UploadId, PartNumber: 2, Body: 'tail' }),
      );
      const completed = await s3.send(
        new CompleteMultipartUploadCommand({
          ...target,
          UploadId,
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: first.ETag },
              { PartNumber: 2, ETag: second.ETag },
            ],
          },
        }),
      );
      // RGW 16 answers <ETag></ETag>; the gateway fills in the ETag a HEAD of the object gives.
      const stored = await storedEtag(world, world.tenant.bucket, target.Key);
      expect(stored).toMatch(/^"[0-9a-f]{32}-2"$/);
      expect(completed.ETag).toBe(stored);
      expect((await s3.send(new HeadObjectCommand(target))).ETag).toBe(stored);
      await s3.send(new DeleteObjectCommand(target));
    });

    // The SDK uploads a stream as aws-chunked with a CRC32 trailer over Transfer-Encoding: chunked (no
    // Content-Length). When such an upload is refused while its body is still on the way, the gateway
    // must keep reading it (or half-close and linger) rather than close the socket: data arriving at a
    // closed socket draws a TCP reset, and the reset can discard the 403 before the client reads it,
    // which is how the SDK intermittently reports "TimeoutError: write EPIPE" instead of AccessDenied.
    // The same request, with the body's tail sent just after the answer, makes that deterministic.
    it('refused streaming upload (the SDK’s wire shape): the body’s tail is read, not reset', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const data = Buffer.from('a body that is refused\n');
      const checksum = Buffer.alloc(4);
      checksum.writeUInt32BE(crc32(data));
      const path = `/${world.tenant.bucket}/refused/streamed.txt`;
      const headers = await signedHeaders({
        credential: world.tenant.readOnly,
        method: 'PUT',
        baseUrl: world.s3Url,
        path,
        payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
        headers: {
          'content-encoding': 'aws-chunked',
          'x-amz-decoded-content-length': String(data.length),
          'x-amz-trailer': 'x-amz-checksum-crc32',
          'user-agent': 'aws-sdk-js-wire-shape',
        },
      });
      const body = awsChunkedBody(data, data.length, { 'x-amz-checksum-crc32': checksum.toString('base64') });
      const httpChunk = (bytes: Buffer): Buffer =>
        Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
      const socket = net.connect({ host: '127.0.0.1', port: world.s3Port, allowHalfOpen: true });
      const events: string[] = [];
      socket.on('error', (error: NodeJS.ErrnoException) => events.push(`socket error ${error.code}`));
      let received = '';
      const answered = new Promise<void>((resolve) =>
        socket.on('data', (bytes: Buffer) => {
          received += bytes.toString('latin1');
          if (received.includes('</Error>')) resolve();
        }),
      );
      const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(`PUT ${path} HTTP/1.1\r\n${head.join('')}transfer-encoding: chunked\r\n\r\n`);
      socket.write(httpChunk(body.subarray(0, 8)));
      await answered;
      expect(received).toMatch(/^HTTP\/1\.1 403 /);
      expect(received).toContain(
        '<Code>AccessDenied</Code><Message>Access to this bucket is denied.</Message>',
      );
      // the rest of the body, as a client still streaming it sends it
      const write = (bytes: Buffer | string): Promise<string> =>
        new Promise((resolve) =>
          socket.write(bytes, (error) => resolve(error ? `failed: ${error.message}` : 'ok')),
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
      events.push(await write(httpChunk(body.subarray(8))));
      await new Promise((resolve) => setTimeout(resolve, 50));
      events.push(await write('0\r\n\r\n'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      expect(events).toEqual(['ok', 'ok']);
      expect(await storedEtag(world, world.tenant.bucket, 'refused/streamed.txt')).toBeNull();
    });

    it('virtual-hosted names resolved by the client’s own agent', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const driver = suite.driver() as AwsSdkJsDriver;
      const resolver = driver.virtualHostResolver;
      // a new connection, so the name is looked up now; only what this call adds is checked
      resolver.dropIdleConnections();
      const before = resolver.resolved.length;
      await driver.list({ key: world.tenant.readWrite, addressing: 'virtual' }, world.tenant.bucket, '');
      const added = resolver.resolved.slice(before);
      expect(added.length).toBeGreaterThanOrEqual(1);
      expect(new Set(added)).toEqual(new Set([`${world.tenant.bucket}.${world.domain}`]));
    });
  },
});
