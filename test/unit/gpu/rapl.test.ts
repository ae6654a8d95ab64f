import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaplReader, raplDeltaUj } from '../../../src/main/lab/gpu/rapl';

/** A fake /sys/class/powercap tree. */
function zone(root: string, dir: string, name: string, energyUj: number, maxUj = 262143328850): string {
  const p = join(root, dir);
  mkdirSync(p, { recursive: true });
  writeFileSync(join(p, 'name'), `${name}\n`);
  writeFileSync(join(p, 'energy_uj'), `${energyUj}\n`);
  writeFileSync(join(p, 'max_energy_range_uj'), `${maxUj}\n`);
  writeFileSync(join(p, 'constraint_0_power_limit_uw'), '250000000\n');
  return p;
}

describe('RAPL reader', () => {
  let root = '';
  let t = 1000;
  const clock = () => t;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'caplab-rapl-'));
    t = 1000;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('computes the delta across one wrap', () => {
    expect(raplDeltaUj(100, 250, 1000)).toBe(150);
    expect(raplDeltaUj(900, 50, 1000)).toBe(150);
  });

  it('lists package zones as CPU devices and derives power from counter deltas, across a wrap', async () => {
    const p0 = zone(root, 'intel-rapl:0', 'package-0', 999_000_000, 1_000_000_000);
    zone(root, 'intel-rapl:1', 'package-1', 5_000_000);
    zone(root, 'intel-rapl:0:0', 'core', 1);
    zone(root, 'intel-rapl:2', 'psys', 1);
    const r = new RaplReader({ root, clock });
    expect(r.status()).toMatchObject({ available: true, reason: null });
    const devs = await r.listDevices();
    expect(devs.map((d) => [d.id, d.name, d.kind, d.backend])).toEqual([
      ['rapl:0', 'CPU package-0', 'cpu', 'rapl'],
      ['rapl:1', 'CPU package-1', 'cpu', 'rapl'],
    ]);
    expect(devs[0]!.sensors.power_kinds).toEqual(['counter']);
    expect(devs[0]!.limit_w).toBe(250);

    // 1 s later package-0 wrapped: 999 J -> (1000 J wrap) -> 149 J = 150 J in 1 s.
    t = 1001;
    writeFileSync(join(p0, 'energy_uj'), '149000000\n');
    writeFileSync(join(root, 'intel-rapl:1', 'energy_uj'), '105000000\n');
    const s = await r.sample([0, 1]);
    expect(s[0]).toMatchObject({ device_id: 'rapl:0', t: 1001, power_kind: 'counter', power_w: 150, energy_mj: 150_000 });
    expect(s[1]).toMatchObject({ device_id: 'rapl:1', power_w: 100, energy_mj: 100_000 });
    expect(r.wraps(0)).toBe(1);

    t = 1003;
    writeFileSync(join(p0, 'energy_uj'), '349000000\n');
    const s2 = await r.sample([0]);
    expect(s2[0]).toMatchObject({ power_w: 100, energy_mj: 350_000 });
    expect(await r.readEnergyMj(0)).toBe(350_000);
    await expect(r.setPowerLimit()).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('reports missing RAPL with a reason instead of failing', async () => {
    const r = new RaplReader({ root: join(root, 'nope'), clock });
    expect(r.status()).toMatchObject({ available: false });
    expect(r.status().reason).toMatch(/does not exist/);
    expect(await r.listDevices()).toEqual([]);
    expect(await r.sample([0])).toEqual([]);

    const r2 = new RaplReader({ root, clock });
    expect(r2.status().reason).toMatch(/no RAPL package zones/);
  });

  it('reports unreadable counters per zone', async () => {
    zone(root, 'intel-rapl:0', 'package-0', 5);
    const bad = join(root, 'intel-rapl:1');
    mkdirSync(join(bad, 'energy_uj'), { recursive: true }); // a directory: reading it fails (EISDIR)
    writeFileSync(join(bad, 'name'), 'package-1\n');
    const r = new RaplReader({ root, clock });
    const st = r.status();
    expect(st.available).toBe(true);
    expect(st.zones.map((z) => [z.zone, z.readable])).toEqual([
      ['intel-rapl:0', true],
      ['intel-rapl:1', false],
    ]);
    expect(st.reason).toMatch(/some RAPL counters unreadable: intel-rapl:1/);
    expect((await r.listDevices()).map((d) => d.id)).toEqual(['rapl:0']);
  });

  it.skipIf(process.getuid?.() === 0)('names the permission problem when energy_uj is root-only', () => {
    const p = zone(root, 'intel-rapl:0', 'package-0', 5);
    chmodSync(join(p, 'energy_uj'), 0o400);
    const r = new RaplReader({ root, clock });
    expect(r.status()).toMatchObject({ available: false });
    expect(r.status().reason).toMatch(/permission denied \(energy_uj is root-only/);
  });
});
