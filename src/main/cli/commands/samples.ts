import { CliError, defineCommand, numberOpt, printJson, stringOpt, type CliArgs } from '../command';
import { dbOption, jsonOption, openEngine } from '../open-engine';
import { MAX_SAMPLE_PAGE } from '../../../shared/api/sweeps';
import type { Source } from '../../../shared/source';
import { paging } from '../flag-docs';

function sourceOf(args: CliArgs): Source {
  const run = numberOpt(args, 'run');
  const segment = numberOpt(args, 'segment');
  if ((run === undefined) === (segment === undefined)) throw new CliError('give --run ID or --segment ID (one of them)');
  return run !== undefined ? { kind: 'run', run_id: run } : { kind: 'segment', segment_id: segment! };
}

/**
 * Stored samples of a run or a dataset segment, read through the engine a page at a time (`listSamples`): every
 * sample as a JSON line, or one page (`--limit`, `--cursor`) with the cursor of the next.
 */
export const samplesCommand = defineCommand({
  name: 'samples',
  summary: 'Print the stored samples of a run or a dataset segment, page by page',
  usage: 'samples (--run ID | --segment ID) [--limit N] [--cursor C] [--db FILE] [--json]',
  options: { ...dbOption, ...jsonOption, run: { type: 'string' }, segment: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
  flags: {
    run: { value: 'ID', text: 'The samples of this run (every device, its start to its end).', example: '--run 12' },
    segment: { value: 'ID', text: 'The samples of this dataset segment (its devices, its window).', example: '--segment 4' },
    ...paging('One page of at most N samples (1 to 10000); JSON: {samples, next}.', 'every sample as a JSON line, fetched page by page', 2000),
  },
  examples: ['caplab samples --run 12 > run-12.jsonl', 'caplab samples --segment 4 --limit 2000 --json'],
  async run(args, io) {
    const source = sourceOf(args);
    const limit = numberOpt(args, 'limit');
    const cursor = stringOpt(args, 'cursor');
    const engine = await openEngine(args, io, { readOnly: true });
    try {
      if (limit !== undefined || cursor !== undefined) {
        const page = await engine.listSamples({ source, cursor, limit: limit ?? 2000 });
        if (args.values.json) {
          printJson(io, page);
          return 0;
        }
        for (const s of page.samples) io.stdout.write(JSON.stringify(s) + '\n');
        io.stderr.write(page.next ? `next page: --cursor ${page.next}\n` : 'last page\n');
        return 0;
      }
      if (args.values.json) throw new CliError('--json prints one page: give --limit N (and --cursor C for the next pages); without it every sample is a JSON line');
      // Every page in turn, each written before the next is read: memory stays one page for any number of samples.
      let next: string | undefined;
      do {
        const page = await engine.listSamples({ source, cursor: next, limit: MAX_SAMPLE_PAGE });
        io.stdout.write(page.samples.map((s) => JSON.stringify(s) + '\n').join(''));
        next = page.next ?? undefined;
      } while (next);
      return 0;
    } finally {
      await engine.close();
    }
  },
});
