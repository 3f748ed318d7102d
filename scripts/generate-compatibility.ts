import { writeFileSync } from 'node:fs';
import { renderCompatibilityPage } from './compatibility-page.js';

/** Writes docs/s3-compatibility.md from the operation catalogue. */
writeFileSync(new URL('../docs/s3-compatibility.md', import.meta.url), renderCompatibilityPage());
console.log('wrote docs/s3-compatibility.md');
