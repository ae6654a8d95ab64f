import { z } from 'zod';
import { BackendChoice, DeviceInfo, Sample } from '../device';
import { CapRestore } from '../records';

/** The GPUs of this host: what they are, one reading now, and putting their limits back. */
export const deviceMethods = {
  listDevices: {
    input: z.object({ backend: BackendChoice.optional() }).strict(),
    output: z.object({ backend: z.string(), reason: z.string(), devices: z.array(DeviceInfo) }),
  },
  /** One reading of every device now (idle gauges); during a sweep the `samples` event streams instead. */
  sampleDevices: {
    input: z.object({ backend: BackendChoice.optional() }).strict(),
    output: z.object({ backend: z.string(), samples: z.array(Sample) }),
  },
  restoreCaps: { input: z.object({}).strict(), output: z.array(CapRestore) },
} as const;
