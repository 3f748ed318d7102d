/**
 * Browser form uploads (POST Object) in real headless Chromium, in front of Ceph RGW: a form
 * presigned through the control plane, sent by a plain HTML form (submit, then the redirect S3
 * answers a form with) and by fetch with FormData from a page whose origin the bucket's CORS rule
 * names (which reads the answer's ETag) and from one it does not name (which cannot read the answer).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
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

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A page with a real HTML form for the presigned fields, and /done for the redirect. */
async function servePages(): Promise<{
  origin: string;
  setForm(url: string, fields: Record<string, string>): void;
  close(): Promise<void>;
}> {
  let form = '';
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://page');
    const html = (body: string) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`,
      );
    };
    if (url.pathname === '/form') html(form);
    else if (url.pathname === '/done') html(`<p id="done">${escapeHtml(url.search)}</p>`);
    else if (url.pathname === '/fetch') html('<input type="file" id="file">');
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    setForm: (action, fields) => {
      const inputs = Object.entries(fields)
        .map(
          ([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
        )
        .join('');
      form =
        `<form id="upload" action="${escapeHtml(action)}" method="post" enctype="multipart/form-data">` +
        `${inputs}<input type="file" name="file" id="file"><button type="submit" id="send">Upload</button></form>`;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('chromium form uploads', () => {
  const rgw = inject('rgw');
  let world: World;
  let workDir: string;
  let context: BrowserContext;
  let pages: Awaited<ReturnType<typeof servePages>>;
  let version = '';
  const file = { name: 'notes.txt', content: `form upload ${randomBytes(8).toString('hex')}\n` };

  const tag = (test: TestContext): void => {
    Object.assign(test.task.meta, { client: 'chromium', clientVersion: version });
  };

  beforeAll(async () => {
    world = await startWorld('chromium-forms', rgw);
    workDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-forms-'));
    writeFileSync(path.join(workDir, file.name), file.content);
    pages = await servePages();
    await world.tenant.owner.putCors(world.tenant.bucket, [
      {
        allowedOrigins: [pages.origin],
        allowedMethods: ['POST', 'GET'],
        exposeHeaders: ['ETag'],
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
    await pages?.close();
    await world?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  it('a plain HTML form uploads the chosen file and the browser follows the redirect', async (test) => {
    tag(test);
    const presigned = await world.tenant.owner.presign(world.tenant.bucket, {
      key: 'forms/${filename}',
      method: 'POST',
      accessKeyId: world.tenant.readWrite.accessKeyId,
      expiresIn: 300,
      maxSizeBytes: 1024 * 1024,
      successActionRedirect: `${pages.origin}/done`,
    });
    pages.setForm(presigned.url, presigned.fields ?? {});
    const page = await context.newPage();
    await page.goto(`${pages.origin}/form`);
    await page.setInputFiles('#file', path.join(workDir, file.name));
    await Promise.all([page.waitForURL(`${pages.origin}/done?**`), page.click('#send')]);
    const query = new URL(page.url()).searchParams;
    expect(query.get('bucket')).toBe(world.tenant.bucket);
    expect(query.get('key')).toBe(`forms/${file.name}`);
    expect(query.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    const stored = await storedObject(world, world.tenant.bucket, `forms/${file.name}`);
    expect(stored?.body.toString('utf8')).toBe(file.content);
    await page.close();
  });

  it('fetch with FormData uploads from a page whose origin the CORS rule names', async (test) => {
    tag(test);
    const presigned = await world.tenant.owner.presign(world.tenant.bucket, {
      key: 'forms/fetched.txt',
      method: 'POST',
      accessKeyId: world.tenant.readWrite.accessKeyId,
      expiresIn: 300,
      contentType: 'text/plain',
    });
    const page = await context.newPage();
    await page.goto(`${pages.origin}/fetch`);
    await page.setInputFiles('#file', path.join(workDir, file.name));
    const result = (await page.evaluate(
      async ([url, fields]) => {
        const data = new FormData();
        for (const [name, value] of Object.entries(fields)) data.append(name, value);
        const chosen = (globalThis as any).document.getElementById('file').files[0];
        data.append('file', chosen);
        try {
          const response = await fetch(url, { method: 'POST', body: data });
          return { status: response.status, etag: response.headers.get('etag') };
        } catch (error) {
          return { error: String(error) };
        }
      },
      [presigned.url, presigned.fields ?? {}] as const,
    )) as { status?: number; etag?: string | null; error?: string };
    // The rule exposes ETag, so the page reads the stored object's.
    expect(result).toEqual({
      status: 204,
      etag: `"${createHash('md5').update(file.content).digest('hex')}"`,
    });
    const stored = await storedObject(world, world.tenant.bucket, 'forms/fetched.txt');
    expect(stored?.body.toString('utf8')).toBe(file.content);
    await page.close();
  });

  it('a page from an origin without a CORS rule cannot read the answer; the policy, not CORS, allows the upload (as on S3)', async (test) => {
    tag(test);
    const stranger = await servePages();
    try {
      const presigned = await world.tenant.owner.presign(world.tenant.bucket, {
        key: 'forms/stranger.txt',
        method: 'POST',
        accessKeyId: world.tenant.readWrite.accessKeyId,
        expiresIn: 300,
      });
      const page = await context.newPage();
      await page.goto(`${stranger.origin}/fetch`);
      const result = (await page.evaluate(
        async ([url, fields]) => {
          const data = new FormData();
          for (const [name, value] of Object.entries(fields)) data.append(name, value);
          data.append('file', new Blob(['from a stranger']), 'stranger.txt');
          try {
            const response = await fetch(url, { method: 'POST', body: data });
            return { status: response.status };
          } catch (error) {
            return { error: String(error) };
          }
        },
        [presigned.url, presigned.fields ?? {}] as const,
      )) as { status?: number; error?: string };
      expect(result).toEqual({ error: 'TypeError: Failed to fetch' });
      // multipart/form-data needs no preflight: the browser sent the form, and its signed policy
      // allowed it. CORS only kept its answer from the page.
      const stored = await storedObject(world, world.tenant.bucket, 'forms/stranger.txt');
      expect(stored?.body.toString('utf8')).toBe('from a stranger');
      await page.close();
    } finally {
      await stranger.close();
    }
  });
});
