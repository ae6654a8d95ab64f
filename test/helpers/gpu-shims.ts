// Shim executables for the GPU tool tests: scripts named nvidia-smi / amd-smi / rocm-smi / sudo placed first on
// PATH, which record their argv and print what the real tools print. Each call appends one line to argv.log:
// the tool name and its arguments joined by \x1f.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ShimDir {
  dir: string;
  bin: string;
  env: NodeJS.ProcessEnv;
  /** Recorded calls: [tool, ...args]. */
  calls(): string[][];
  write(name: string, content: string): void;
  cleanup(): void;
}

const LOG = `(IFS=$'\\x1f'; printf '%s\\n' "$(basename "$0")"$'\\x1f'"$*") >> "$SHIM_DIR/argv.log"`;

export function makeShimDir(extraEnv: NodeJS.ProcessEnv = {}): ShimDir {
  const dir = mkdtempSync(join(tmpdir(), 'caplab-shim-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, SHIM_DIR: dir, ...extraEnv };
  return {
    dir,
    bin,
    env,
    calls() {
      const f = join(dir, 'argv.log');
      if (!existsSync(f)) return [];
      return readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\x1f'));
    },
    write(name, content) {
      writeFileSync(join(dir, name), content);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function installShim(s: ShimDir, name: string, body: string): void {
  const p = join(s.bin, name);
  writeFileSync(p, `#!/bin/bash\n${LOG}\n${body}\n`);
  chmodSync(p, 0o755);
}

/** nvidia-smi: 2 GPUs (GPU 1 with [N/A]/[Not Supported] cells), -lms stream every 50 ms, -pl sets GPU 0's limit. */
export function installNvidiaSmi(s: ShimDir): void {
  s.write(
    'help.txt',
    [
      'List of valid properties to query for the switch "--query-gpu=":',
      '"timestamp"', '"driver_version"', '"count"', '"name" or "gpu_name"', '"serial"', '"uuid"', '"pci.bus_id"', '"index"',
      '"vbios_version"', '"power.draw"', '"power.draw.average"', '"power.draw.instant"', '"power.limit"', '"enforced.power.limit"',
      '"power.default_limit"', '"power.min_limit"', '"power.max_limit"', '"clocks.sm"', '"clocks.mem"', '"temperature.gpu"',
      '"utilization.gpu"', '"utilization.memory"', '"memory.used"', '"clocks_event_reasons.active"',
    ].join('\n'),
  );
  installShim(
    s,
    'nvidia-smi',
    `D="$SHIM_DIR"
limit=$(cat "$D/limit0" 2>/dev/null || echo 700)
lim=$(printf '%.2f' "$limit")
case " $* " in
  *" --help-query-gpu "*) cat "$D/help.txt"; exit 0;;
  " --version ") printf 'NVIDIA-SMI version  : 580.159.04\nDRIVER version      : 580.159.04\nCUDA Version        : 13.0\n'; exit 0;;
  *" -pl "*)
    w="\${@: -1}"
    if [ -n "$SHIM_PL_FAIL" ]; then echo "Changing power management limit is not supported in current scope for GPU: 00000000:01:00.0."; echo "Terminating early due to previous errors."; exit 3; fi
    [ -z "$SHIM_IGNORE_SET" ] && echo "$w" > "$D/limit0"
    printf 'Power limit for GPU 00000000:01:00.0 was set to %.2f W from %.2f W.\\nAll done.\\n' "$w" "$limit"; exit 0;;
  *" -lms "*)
    while true; do
      ts=$(date '+%Y/%m/%d %H:%M:%S.%3N')
      echo "$ts, 0, 312.45, 298.10, 1980, 3201, 61, 97, 43, 81234, $lim, 0x0000000000000004"
      [ ! -e "$D/drop1" ] && echo "$ts, 1, [N/A], [Not Supported], 345, 3201, 33, 0, 0, 1, 700.00, [Unknown Error]"
      sleep 0.05
    done;;
  *"--query-gpu=index,name"*)
    [ -n "$SHIM_NO_GPU" ] && { echo "No devices were found"; exit 6; }
    echo "0, NVIDIA H200, GPU-aaaaaaaa-0000-0000-0000-000000000000, 00000000:01:00.0, 580.159.04, 96.00.AF.00.01, $lim, $lim, 200.00, 700.00, 700.00"
    echo "1, NVIDIA H200, GPU-bbbbbbbb-0000-0000-0000-000000000000, 00000000:02:00.0, 580.159.04, [N/A], 700.00, 700.00, [N/A], [N/A], 700.00"
    exit 0;;
  *"--query-gpu=enforced.power.limit"*) echo "$lim"; exit 0;;
  *"--query-gpu=power.limit"*) echo "$lim"; exit 0;;
esac
echo "shim nvidia-smi: unexpected arguments: $*" >&2; exit 9`,
  );
}

/**
 * sudo: SHIM_SUDO=nopass (default) runs the command; =password prompts (CapLab's -p prompt) and checks
 * SHIM_SUDO_PASSWORD, or fails at once under -n; =refuse says the user is not in sudoers. With -l (list) it runs
 * nothing: nopass prints the command's path and arguments and exits 0, as sudo does for an allowed command.
 */
export function installSudo(s: ShimDir): void {
  installShim(
    s,
    'sudo',
    `nonint=0; list=0; prompt="Password: "
while [ $# -gt 0 ]; do case "$1" in -n) nonint=1; shift;; -l) list=1; shift;; -p) prompt="$2"; shift 2;; --) shift; break;; *) break;; esac; done
case "\${SHIM_SUDO:-nopass}" in
  nopass) if [ $list = 1 ]; then echo "$(command -v "$1") \${*:2}"; exit 0; fi; exec "$@";;
  password)
    if [ $nonint = 1 ]; then echo "sudo: a password is required" >&2; exit 1; fi
    printf '%s' "\${prompt//%u/tester}"; read -rs pw; echo
    if [ "$pw" = "$SHIM_SUDO_PASSWORD" ]; then exec "$@"; fi
    echo "sudo: 1 incorrect password attempt" >&2; exit 1;;
  refuse) echo "tester is not in the sudoers file." >&2; exit 1;;
esac`,
  );
}

/**
 * A fake powercap tree (CAPLAB_RAPL_ROOT) whose package-0 counter advances at `watts`, as the kernel's would.
 * Call `stop()` when done.
 */
export function installFakeRapl(s: ShimDir, watts: number): { root: string; stop: () => void } {
  const root = join(s.dir, 'powercap');
  mkdirSync(join(root, 'intel-rapl:0'), { recursive: true });
  writeFileSync(join(root, 'intel-rapl:0', 'name'), 'package-0\n');
  writeFileSync(join(root, 'intel-rapl:0', 'max_energy_range_uj'), '262143328850\n');
  const start = Date.now();
  const write = () => {
    // Replaced atomically, as sysfs reads are: a reader never sees a half-written file.
    writeFileSync(join(root, 'energy_uj.tmp'), `${Math.round((Date.now() - start) * watts * 1000)}\n`);
    renameSync(join(root, 'energy_uj.tmp'), join(root, 'intel-rapl:0', 'energy_uj'));
  };
  write();
  const timer = setInterval(write, 20);
  return { root, stop: () => clearInterval(timer) };
}
