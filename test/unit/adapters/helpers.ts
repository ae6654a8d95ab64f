import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES = join(__dirname, '../../fixtures/adapters');

export function fixture(name: string): { text: string; file: string } {
  const file = join(FIXTURES, name);
  return { text: readFileSync(file, 'latin1'), file: name };
}
