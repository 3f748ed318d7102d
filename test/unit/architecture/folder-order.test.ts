/**
 * The lint rule that keeps imports going down the folder order (eslint.config.js): a file that
 * imports from a folder above its own fails `npm run lint`, one that imports from below passes.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../../..', import.meta.url).pathname });

async function refused(file: string, from: string): Promise<boolean> {
  const [result] = await eslint.lintText(`import { a } from '${from}';\nexport const b = a;\n`, {
    filePath: file,
  });
  return (result?.messages ?? []).some((message) => message.ruleId === 'no-restricted-imports');
}

describe('folder order', () => {
  it.each([
    ['src/protocol/x.ts', '../sigv4/verify.js'],
    ['src/protocol/x.ts', '../store/index.js'],
    ['src/sigv4/x.ts', '../store/index.js'],
    ['src/sigv4/x.ts', '../s3/pipeline.js'],
    ['src/backend/x.ts', '../store/index.js'],
    ['src/backend/x.ts', '../s3/pipeline.js'],
    ['src/store/x.ts', '../s3/pipeline.js'],
    ['src/store/x.ts', '../control/app.js'],
    ['src/s3/steps/x.ts', '../../control/app.js'],
    ['src/s3/x.ts', '../server/listen.js'],
    ['src/control/services/x.ts', '../../s3/pipeline.js'],
    ['src/control/x.ts', '../runtime.js'],
    ['src/cli/x.ts', '../store/index.js'],
    ['src/cli/commands/x.ts', '../../control/app.js'],
    ['src/access/x.ts', '../store/index.js'],
    ['src/security/x.ts', '../config/schema.js'],
    ['src/config/x.ts', '../observability/logger.js'],
    ['src/store/x.ts', '../backend/object-store.js'],
    ['src/observability/x.ts', '../s3/pipeline.js'],
    ['src/s3/upstream/x.ts', '../../runtime.js'],
    ['src/s3/x.ts', '../bootstrap.js'],
    ['src/control/services/x.ts', '../../welcome.js'],
    ['src/control/x.ts', '../cluster/supervisor.js'],
    ['src/server/x.ts', '../cluster/supervisor.js'],
    ['src/server/x.ts', '../start.js'],
    ['src/cluster/x.ts', '../runtime.js'],
    ['src/s3/steps/x.ts', '../../../test/support/gateway.js'],
  ])('refuses %s importing %s (a folder above it)', async (file, from) => {
    expect(await refused(file, from)).toBe(true);
  });

  it.each([
    ['src/sigv4/x.ts', '../protocol/errors.js'],
    ['src/backend/x.ts', '../sigv4/signer.js'],
    ['src/store/x.ts', '../protocol/limits.js'],
    ['src/s3/steps/x.ts', '../../store/access-cache.js'],
    ['src/s3/steps/x.ts', '../../sigv4/verify.js'],
    ['src/control/services/x.ts', '../../store/index.js'],
    ['src/control/services/x.ts', '../../backend/object-store.js'],
    ['src/cli/x.ts', '../protocol/errors.js'],
    ['src/cli/commands/x.ts', '../output.js'],
    ['src/control/http/x.ts', '../context.js'],
    ['src/s3/steps/x.ts', '../stages.js'],
    ['src/s3/upstream/x.ts', '../../protocol/errors.js'],
    ['src/store/x.ts', '../access/scope.js'],
    ['src/observability/x.ts', '../store/invalidation.js'],
    ['src/server/x.ts', '../s3/pipeline.js'],
    ['src/cluster/x.ts', '../server/listen.js'],
  ])('allows %s importing %s (a folder below it, or its own)', async (file, from) => {
    expect(await refused(file, from)).toBe(false);
  });
});
