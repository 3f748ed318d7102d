/**
 * A browser upload as a web application does it, in real headless Chromium (Debian's, driven by
 * playwright-core): a page served from one loopback origin picks a file, PUTs it to a URL presigned
 * through the control plane, and reads it back with a presigned GET, after a CORS rule for that
 * origin was set through the control plane. The same page from a second origin (another port, so
 * another origin) has no rule: the browser's preflight is refused and the upload fails with a CORS
 * error, and a presigned GET is answered but unreadable to the page.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, type TestContext } from 'vitest';
import { isolatedEnv, runProcess } from '../support/subprocess.js';
import { startWorld, storedObject, type World } from '../support/world.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The web application: one file input, and an upload-then-read-back function the test calls. */
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Upload</title></head>
<body>
<input type="file" id="file">
<script>
  async function attempt(label, run) {
    try { return { label, ...(await run()) }; }
    catch (error) { return { label, error: String(error) }; }
  }
  window.uploadAndReadBack = async (put, getUrl) => {
    const file = document.getElementById('file').files[0];
    const upload = await attempt('PUT', async () => {
      const response = await fetch(put.url, { method: 'PUT', headers: put.headers, body: file });
      return { status: response.status };
    });
    const readBack = await attempt('GET', async () => {
      const response = await fetch(getUrl);
      return { status: response.status, text: await response.text() };
    });
    return { upload, readBack };
  };
</script>
</body>
</html>
`;

interface Attempt {
  label: string;
  status?: number;
  text?: string;
  error?: string;
}

async function servePage(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(PAGE);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('chromium', () => {
  const rgw = inject('rgw');
  let world: World;
  let workDir: string;
  let context: BrowserContext;
  let version = '';
  let allowed: Awaited<ReturnType<typeof servePage>>;
  let other: Awaited<ReturnType<typeof servePage>>;
  const file = { name: 'photo.txt', content: `browser upload ${randomBytes(8).toString('hex')}\n` };
  const consoleMessages: string[] = [];

  const tag = (test: TestContext): void => {
    Object.assign(test.task.meta, { client: 'chromium', clientVersion: version });
  };

  async function presigned(
    key: string,
  ): Promise<{ put: { url: string; headers: Record<string, string> }; get: string }> {
    const owner = world.tenant.owner;
    const accessKeyId = world.tenant.readWrite.accessKeyId;
    const put = await owner.presign(world.tenant.bucket, {
      key,
      method: 'PUT',
      accessKeyId,
      expiresIn: 300,
      contentType: 'text/plain',
    });
    const get = await owner.presign(world.tenant.bucket, { key, method: 'GET', accessKeyId, expiresIn: 300 });
    return { put: { url: put.url, headers: put.headers }, get: get.url };
  }

  async function openPage(origin: string): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (message) => consoleMessages.push(message.text()));
    await page.goto(`${origin}/`);
    await page.setInputFiles('#file', path.join(workDir, file.name));
    return page;
  }

  beforeAll(async () => {
    world = await startWorld('chromium', rgw);
    workDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-chromium-'));
    writeFileSync(path.join(workDir, file.name), file.content);
    allowed = await servePage();
    other = await servePage();
    await world.tenant.owner.putCors(world.tenant.bucket, [
      {
        allowedOrigins: [allowed.origin],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['content-type'],
        maxAgeSeconds: 60,
      },
    ]);
    const about = await runProcess(CHROMIUM, ['--version'], { env: isolatedEnv(workDir) });
    version = /Chromium (\S+)/.exec(about.stdout)?.[1] ?? 'unknown';
    context = await chromium.launchPersistentContext(path.join(workDir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  });
  afterAll(async () => {
    await context?.close();
    await allowed?.close();
    await other?.close();
    await world?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  it('presigned PUT and read-back from the origin with a CORS rule', async (test) => {
    tag(test);
    const key = 'browser/from-allowed-origin.txt';
    const urls = await presigned(key);
    expect(urls.put.headers).toMatchObject({ 'content-type': 'text/plain' });
    const page = await openPage(allowed.origin);
    const result = (await page.evaluate(([put, get]) => (globalThis as any).uploadAndReadBack(put, get), [
      urls.put,
      urls.get,
    ] as const)) as { upload: Attempt; readBack: Attempt };
    expect(result.upload).toEqual({ label: 'PUT', status: 200 });
    expect(result.readBack).toEqual({ label: 'GET', status: 200, text: file.content });
    expect((await storedObject(world, world.tenant.bucket, key))?.body.toString('utf8')).toBe(file.content);
    // the browser asked first (preflight), and the gateway allowed it for this origin
    const preflights = world
      .accessLog()
      .filter((entry) => entry.method === 'OPTIONS' && entry.target.includes(key));
    expect(preflights.map((entry) => entry.status)).toEqual([200]);
    await page.close();
  });

  it('origin without a rule: preflight refused, the upload fails with a CORS error', async (test) => {
    tag(test);
    const key = 'browser/from-other-origin.txt';
    const urls = await presigned(key);
    const before = consoleMessages.length;
    const page = await openPage(other.origin);
    const result = (await page.evaluate(([put, get]) => (globalThis as any).uploadAndReadBack(put, get), [
      urls.put,
      urls.get,
    ] as const)) as { upload: Attempt; readBack: Attempt };
    expect(result.upload).toEqual({ label: 'PUT', error: 'TypeError: Failed to fetch' });
    expect(result.readBack).toEqual({ label: 'GET', error: 'TypeError: Failed to fetch' });
    const blocked = consoleMessages.slice(before).filter((text) => text.includes('blocked by CORS policy'));
    expect(
      blocked.some((text) => text.includes(`from origin '${other.origin}'`) && text.includes('preflight')),
    ).toBe(true);
    // nothing was stored, and the only request of the upload that reached the gateway was the refused preflight
    expect(await storedObject(world, world.tenant.bucket, key)).toBeNull();
    const seen = world.accessLog().filter((entry) => entry.target.includes(key));
    expect(seen.filter((entry) => entry.method === 'PUT')).toEqual([]);
    expect(seen.filter((entry) => entry.method === 'OPTIONS').map((entry) => entry.status)).toEqual([403]);
    await page.close();
  });

  it('origin without a rule: a presigned GET is answered but unreadable to the page', async (test) => {
    tag(test);
    // Its own object: a URL presigned for the first test's key within the same second is that same
    // URL, which Chromium has cached from the first test and revalidates with If-None-Match (on a
    // Vary: Origin mismatch), a conditional GET the spec refuses with InvalidRequest.
    const key = 'browser/read-by-other-origin.txt';
    await world.observer.send(
      new PutObjectCommand({
        Bucket: world.tenant.bucket,
        Key: key,
        Body: file.content,
        ContentType: 'text/plain',
      }),
    );
    const { get } = await presigned(key);
    const before = consoleMessages.length;
    const page = await openPage(other.origin);
    const result = (await page.evaluate(
      (url) =>
        fetch(url).then(
          (response) => ({ status: response.status }),
          (error: unknown) => ({ error: String(error) }),
        ),
      get,
    )) as { status?: number; error?: string };
    expect(result).toEqual({ error: 'TypeError: Failed to fetch' });
    expect(
      consoleMessages.slice(before).some((text) => text.includes("No 'Access-Control-Allow-Origin' header")),
    ).toBe(true);
    // a simple GET needs no preflight: the gateway served it, the browser withheld it from the page
    const gets = world.accessLog().filter((entry) => entry.method === 'GET' && entry.target.includes(key));
    expect(gets.map(({ status, code }) => ({ status, code })).at(-1)).toEqual({ status: 200, code: '' });
    await page.close();
  });
});
