import type { GpuBackend } from './backend';

/**
 * A window edge's counter reading with the time its value belongs to: the backend's own where it has one (the
 * simulated clock runs 60x: a 2 ms stall around the call moved a midpoint stamp past the next drained reading, and
 * the sorted counter stepped down, flagged "counter reset"), else the midpoint of the clock around the call.
 */
export async function counterReading(backend: GpuBackend, index: number): Promise<{ t: number; energy_mj: number | null }> {
  if (backend.readEnergyAt) return backend.readEnergyAt(index);
  const before = backend.now();
  const energy_mj = await backend.readEnergyMj(index);
  return { t: (before + backend.now()) / 2, energy_mj };
}
