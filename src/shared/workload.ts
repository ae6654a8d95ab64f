import { z } from 'zod';

/**
 * A workload definition (resources/workloads/*.yaml, or a user's workloads folder): what a workload is, which
 * parameters it takes, how to start it natively or in a container, and how its throughput is read.
 * The schema is documented in docs/workloads.md. Command lines are argv templates, never shell strings.
 */

export const WorkloadUnits = z.enum(['images', 'tokens', 'requests']);
export type WorkloadUnits = z.infer<typeof WorkloadUnits>;

export const ContainerRuntime = z.enum(['docker', 'podman', 'apptainer']);
export type ContainerRuntime = z.infer<typeof ContainerRuntime>;
export const WorkloadRuntime = z.enum(['native', 'docker', 'podman', 'apptainer']);
export type WorkloadRuntime = z.infer<typeof WorkloadRuntime>;
export const GpuVendor = z.enum(['nvidia', 'amd', 'none']);
export type GpuVendor = z.infer<typeof GpuVendor>;

/** Parameter and placeholder names: lower snake case. */
export const ParamName = z.string().regex(/^[a-z][a-z0-9_]{0,47}$/, 'a name of lower-case letters, digits and _ starting with a letter');

const common = {
  title: z.string().optional(),
  description: z.string().optional(),
};

export const ParamSpec = z.discriminatedUnion('type', [
  z.object({ type: z.literal('int'), default: z.number().int().optional(), min: z.number().int().optional(), max: z.number().int().optional(), ...common }).strict(),
  z.object({ type: z.literal('number'), default: z.number().optional(), min: z.number().optional(), max: z.number().optional(), ...common }).strict(),
  z.object({ type: z.literal('bool'), default: z.boolean().optional(), ...common }).strict(),
  z.object({ type: z.literal('enum'), values: z.array(z.string().min(1)).min(1), default: z.string().optional(), ...common }).strict(),
  /** Free text. Values never start with '-' (so a value cannot turn into an option) and hold no control characters; `pattern` narrows further. */
  z.object({ type: z.literal('string'), default: z.string().optional(), pattern: z.string().optional(), max_length: z.number().int().positive().default(512), ...common }).strict(),
  /** A list of arguments (the generic command workload's command line). Expands to several argv elements. */
  z.object({ type: z.literal('argv'), default: z.array(z.string()).optional(), ...common }).strict(),
]);
export type ParamSpec = z.infer<typeof ParamSpec>;
export type ParamType = ParamSpec['type'];

/** A parameter value as given in a plan, the API or the CLI. */
export const ParamValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
export type ParamValue = z.infer<typeof ParamValue>;
export type ParamValues = Record<string, ParamValue>;

/**
 * One argv template element: a string with `{name}` placeholders, or a conditional group that is included when
 * `when` holds: `name` (bool true / non-empty), `!name`, `name=value`, `name!=value`.
 */
export const ArgItem = z.union([
  z.string(),
  z.object({ when: z.string().regex(/^!?[a-z][a-z0-9_]*((!?=)[^\s]*)?$/, 'when: "name", "!name", "name=value" or "name!=value"'), args: z.array(z.string()).min(1) }).strict(),
]);
export type ArgItem = z.infer<typeof ArgItem>;

const ImageByVendor = z.union([z.string().min(1), z.object({ nvidia: z.string().min(1).optional(), amd: z.string().min(1).optional() }).strict()]);

export const ContainerSpec = z
  .object({
    /** OCI image for docker/podman, one for all vendors or one per vendor. */
    image: ImageByVendor,
    /** Apptainer image (a .sif path or docker:// URI); default `docker://<image>`. */
    apptainer_image: ImageByVendor.optional(),
    /**
     * Command inside the container (argv template; `{python}` and `{args}` expand as natively, `{resources}` is
     * /opt/caplab/resources in the image). Defaults to the native argv.
     */
    command: z.array(ArgItem).min(1).optional(),
    env: z.record(z.string(), z.string()).default({}),
    shm_size: z.string().regex(/^\d+[kmg]?$/i).default('16g'),
    /** `host` lets an online-serving client reach a server on the node's loopback. */
    network: z.enum(['host', 'default', 'none']).default('host'),
    workdir: z.string().optional(),
  })
  .strict();
export type ContainerSpec = z.infer<typeof ContainerSpec>;

export const ThroughputReader = z
  .object({
    /** `protocol` (CapLab's line protocol) or an adapter name (see `caplab throughput --help`), or `auto`. */
    adapter: z.string().min(1).default('protocol'),
    /** Where the adapter reads: the workload's output (default) or a file (template, e.g. `{run_dir}/metrics.csv`). */
    file: z.string().optional(),
    /** For the `regex` adapter: a pattern with named groups units / seconds / rate / t. */
    pattern: z.string().optional(),
  })
  .strict();
export type ThroughputReader = z.infer<typeof ThroughputReader>;

export const MultiGpu = z
  .object({
    /**
     * none: one GPU only. torchrun: `{python}` becomes `python -m torch.distributed.run --standalone --nnodes=1
     * --nproc-per-node=N` when more than one GPU is given. single-process: one process drives all visible GPUs.
     */
    launcher: z.enum(['none', 'torchrun', 'single-process']).default('none'),
    max_gpus: z.number().int().min(1).max(64).default(1),
  })
  .strict();
export type MultiGpu = z.infer<typeof MultiGpu>;

export const WorkloadDefinition = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'lower-case letters, digits, _ and - starting with a letter'),
    title: z.string().min(1),
    description: z.string().default(''),
    units: WorkloadUnits,
    /** script: a built-in or user script; command: the user gives the whole command line (argv param). */
    kind: z.enum(['script', 'command']).default('script'),
    /** Where the workload comes from (a paper, a tool), shown in the UI. */
    source: z.string().optional(),
    params: z.record(ParamName, ParamSpec).default({}),
    /** Shared arguments, placed where a command template says `{args}`. */
    args: z.array(ArgItem).default([]),
    native: z.object({ argv: z.array(ArgItem).min(1), env: z.record(z.string(), z.string()).default({}) }).strict().optional(),
    container: ContainerSpec.optional(),
    multi_gpu: MultiGpu.default({ launcher: 'none', max_gpus: 1 }),
    throughput: ThroughputReader.default({ adapter: 'protocol' }),
    /**
     * What is known of its start on real GPUs, for the plan check's warnings until earlier runs on the device say
     * more: seconds from the first step until throughput is steady, and where that figure comes from.
     */
    ramp: z.object({ seconds: z.number().positive(), source: z.string().min(1) }).strict().optional(),
  })
  .strict()
  .refine((d) => d.native || d.container, { message: 'a workload needs `native`, `container` or both', path: ['native'] })
  .refine((d) => !d.container || d.container.command || d.native, { message: 'container.command is needed when there is no native argv', path: ['container', 'command'] });
export type WorkloadDefinition = z.infer<typeof WorkloadDefinition>;
export type WorkloadDefinitionInput = z.input<typeof WorkloadDefinition>;

/** What `caplab workloads --json` and the UI list. */
export const WorkloadSummary = z.object({
  id: z.string(),
  title: z.string(),
  units: WorkloadUnits,
  kind: z.enum(['script', 'command']),
  description: z.string(),
  builtin: z.boolean(),
  file: z.string(),
  runtimes: z.array(WorkloadRuntime),
  max_gpus: z.number().int(),
  adapter: z.string(),
  params: z.record(z.string(), ParamSpec),
});
export type WorkloadSummary = z.infer<typeof WorkloadSummary>;

/** Placeholders every template may use besides the definition's own parameters. */
export const BUILTIN_PLACEHOLDERS = ['python', 'args', 'resources', 'gpus', 'devices', 'run_dir'] as const;
