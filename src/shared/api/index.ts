import { z } from 'zod';
import { ApiErrorCode } from '../errors';
import { systemMethods } from './system';
import { deviceMethods } from './devices';
import { PlanIssue, planMethods } from './plans';
import { sweepEvents, sweepMethods } from './sweeps';
import { tuneEvents, tuneMethods } from './tune';
import { analysisMethods } from './analysis';
import { datasetEvents, datasetMethods } from './datasets';
import { clusterMethods } from './cluster';
import { exportEvents, exportMethods } from './exports';
import { facilityEvents, facilityMethods } from './facility';

/**
 * The one contract between the engine and its faces (Electron IPC, the browser host, the CLI), composed from one
 * slice per feature in this folder; each slice holds its methods, its events and the schemas only they use.
 * Every method has an input and output schema; both transports validate inputs with them.
 * Adding a method: one entry in its feature's slice plus the method in that slice's service (the engine serves each
 * slice with one, src/main/lab/engine.ts); a new feature is a new slice named in `slices` and its events spread in
 * `events` (test/unit/api-slices.test.ts fails on one left out or a name taken twice).
 */
export const slices = {
  system: systemMethods,
  devices: deviceMethods,
  plans: planMethods,
  sweeps: sweepMethods,
  tune: tuneMethods,
  analysis: analysisMethods,
  datasets: datasetMethods,
  cluster: clusterMethods,
  exports: exportMethods,
  facility: facilityMethods,
} as const;

export const methods = {
  ...slices.system,
  ...slices.devices,
  ...slices.plans,
  ...slices.sweeps,
  ...slices.tune,
  ...slices.analysis,
  ...slices.datasets,
  ...slices.cluster,
  ...slices.exports,
  ...slices.facility,
} as const;

export const events = {
  ...sweepEvents,
  ...tuneEvents,
  ...datasetEvents,
  ...facilityEvents,
  ...exportEvents,
} as const;

export type MethodName = keyof typeof methods;
export type MethodInput<M extends MethodName> = z.input<(typeof methods)[M]['input']>;
export type MethodOutput<M extends MethodName> = z.infer<(typeof methods)[M]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.infer<(typeof events)[E]>;
/**
 * One event as the engine hands it out, name then payload, a union over the contract's events, so a
 * LabEventListener `(name, payload) => …` narrows the payload by testing the name, without casts. A listener that
 * wants the name alone destructures it, `(...[name]) => …`: TypeScript refuses a one-parameter function here.
 */
export type EventArgs = { [E in EventName]: [name: E, payload: EventPayload<E>] }[EventName];
export type LabEventListener = (...e: EventArgs) => void;

/** What every face implements or calls. */
export type LabApi = { [M in MethodName]: (input: MethodInput<M>) => Promise<MethodOutput<M>> };

export type SliceName = keyof typeof slices;
/** The methods of one slice, typed from its schemas: what the engine's service for that slice implements. */
export type SliceApi<S extends SliceName> = Pick<LabApi, keyof (typeof slices)[S] & MethodName>;
/** One implementation per slice: the engine's table of services has this shape. */
export type ApiBySlice = { [S in SliceName]: SliceApi<S> };

export const methodNames = Object.keys(methods) as MethodName[];
export const sliceNames = Object.keys(slices) as SliceName[];

/** The methods a slice declares, in its order. */
export function methodsOf(slice: SliceName): MethodName[] {
  return Object.keys(slices[slice]) as MethodName[];
}
export const eventNames = Object.keys(events) as EventName[];

export function isMethodName(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, name);
}

/**
 * Error shape both transports return. `issues`: a refused plan's problems at their fields (startSweep, validation
 * failures of a plan), so a face shows each where it belongs instead of parsing `error`'s text.
 */
export const ApiError = z.object({ error: z.string(), code: ApiErrorCode, issues: z.array(PlanIssue).optional() });
export type ApiError = z.infer<typeof ApiError>;
