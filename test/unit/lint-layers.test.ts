// The layer map is enforced by the real ESLint config: planted imports across a layer boundary fail lint.
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath });
  return r!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer map', { timeout: 60_000 }, () => {
  it('fails a planted lab -> host import, and lab -> cli', async () => {
    expect(await layerErrors('src/main/lab/planted.ts', "import { startServer } from '../host/server';\nexport const x = startServer;\n")).toEqual([
      expect.stringMatching(/src\/main\/lab is the engine: it imports neither the browser host nor the CLI/),
    ]);
    expect(await layerErrors('src/main/lab/sweep/planted.ts', "import { main } from '../../cli/main';\nexport const x = main;\n")).toHaveLength(1);
  });

  it('fails host -> cli, renderer -> core analysis and core -> lab; allows the sanctioned edges', async () => {
    expect(await layerErrors('src/main/host/planted.ts', "import { main } from '../cli/main';\nexport const x = main;\n")).toHaveLength(1);
    expect(await layerErrors('src/renderer/planted.ts', "import { analyzeSweep } from '../core/analysis/analyze';\nexport const x = analyzeSweep;\n")).toHaveLength(1);
    expect(await layerErrors('src/core/planted.ts', "import { Engine } from '../main/lab/engine';\nexport const x = Engine;\n")).toHaveLength(1);
    expect(await layerErrors('src/renderer/planted.ts', "import { decimateMinMax } from '../core/decimate';\nexport const x = decimateMinMax;\n")).toEqual([]);
    expect(await layerErrors('src/main/cli/planted.ts', "import { startServer } from '../host/server';\nexport const x = startServer;\n")).toEqual([]);
    expect(await layerErrors('src/main/host/planted.ts', "import { Engine } from '../lab/engine';\nexport const x = Engine;\n")).toEqual([]);
  });
});
