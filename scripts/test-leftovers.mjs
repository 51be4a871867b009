// What a test file leaves running: the processes (from /proc, Linux) that carry the file's marker in their
// environment or sit in the file's process group, found after the file's process ended.
import { readdirSync, readFileSync } from 'node:fs';

/** pid, process group, state letter and command line of a process, or null once it is gone. */
function describeProcess(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, state: fields[0], pgid: Number(fields[2]), command };
  } catch {
    return null;
  }
}

function hasMarker(pid, marker) {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker);
  } catch {
    return false;
  }
}

/** Live processes (zombies are already dead) with `VK_TEST_FILE_TOKEN=<token>` or in group `pgid`. */
export function findLeftovers(token, pgid) {
  const marker = `VK_TEST_FILE_TOKEN=${token}`;
  const found = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const info = describeProcess(pid);
    if (info === null || info.state === 'Z') continue;
    if (info.pgid === pgid || hasMarker(pid, marker)) found.push(info);
  }
  return found;
}

/** SIGKILLs each process and its group (a group leader's children go with it). */
export function killAll(processes) {
  for (const { pid } of processes) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone already, or not a group leader
      }
    }
  }
}

/**
 * The file's leftovers: whatever is still running a moment after the file's process ended (a process
 * already on its way out, killed in the file's last instant, is given that moment). Each is SIGKILLed.
 */
export async function endLeftovers(token, pgid, graceMs = 1_000) {
  const deadline = Date.now() + graceMs;
  let left = findLeftovers(token, pgid);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = findLeftovers(token, pgid);
  }
  killAll(left);
  return left;
}
