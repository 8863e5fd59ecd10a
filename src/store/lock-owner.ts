import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { nodeBinding } from '../git/node-binding.js';

/**
 * Who holds a lock, in enough detail to tell a live owner from a dead one without waiting: a pid alone
 * is not enough, since pids are reused after a reboot, by other processes, and across containers.
 */
export interface LockOwner {
  pid: number;
  /** Milliseconds since the epoch when the lock was taken. */
  at: number;
  host?: string;
  /** Linux: changes at every boot, so a lock from before a reboot is known to be dead. */
  boot?: string;
  /** Linux: the pid namespace; pids of another container mean nothing here. */
  pidNs?: string;
  /** Linux: the process's start time (clock ticks since boot), which a reused pid does not share. */
  start?: string;
}

/** What the machine this process runs on can find out about a pid. */
export interface ProcessProbe {
  host: string;
  boot?: string | undefined;
  pidNs?: string | undefined;
  isAlive: (pid: number) => boolean;
  /** `undefined` when this platform cannot tell (no /proc). */
  startOf: (pid: number) => string | undefined;
}

export type LockVerdict =
  | { held: true }
  | { held: false; reason: 'garbled' | 'dead' | 'pid-reused' | 'rebooted' | 'expired' };

/** Our own format is written whole before it becomes the lock; another writer's may be mid-write briefly. */
export const GARBLED_GRACE_MS = 250;

/**
 * Whether a lock's owner may still be working. `ageMs` is the lock file's age; `staleMs` applies only
 * where the owner cannot be checked from here: another machine, another pid namespace, or a platform
 * without process start times.
 */
export function judgeLockOwner(
  text: string,
  context: { probe: ProcessProbe; now: number; ageMs: number; staleMs: number },
): LockVerdict {
  const { probe } = context;
  const owner = parseOwner(text);
  if (!owner) return context.ageMs > GARBLED_GRACE_MS ? { held: false, reason: 'garbled' } : { held: true };
  const expired = (): LockVerdict =>
    context.now - owner.at > context.staleMs ? { held: false, reason: 'expired' } : { held: true };
  if (owner.host !== undefined && owner.host !== probe.host) return expired();
  if (owner.boot && probe.boot && owner.boot !== probe.boot) return { held: false, reason: 'rebooted' };
  if (owner.pidNs && probe.pidNs && owner.pidNs !== probe.pidNs) return expired();
  if (!probe.isAlive(owner.pid)) return { held: false, reason: 'dead' };
  const start = owner.start === undefined ? undefined : probe.startOf(owner.pid);
  if (start === undefined) return expired();
  return start === owner.start ? { held: true } : { held: false, reason: 'pid-reused' };
}

function parseOwner(text: string): LockOwner | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  if (!Number.isSafeInteger(record.pid) || (record.pid as number) <= 0) return null;
  if (typeof record.at !== 'number') return null;
  const text_ = (key: string) => (typeof record[key] === 'string' ? (record[key] as string) : undefined);
  return {
    pid: record.pid as number,
    at: record.at,
    ...(text_('host') !== undefined ? { host: text_('host') } : {}),
    ...(text_('boot') !== undefined ? { boot: text_('boot') } : {}),
    ...(text_('pidNs') !== undefined ? { pidNs: text_('pidNs') } : {}),
    ...(text_('start') !== undefined ? { start: text_('start') } : {}),
  };
}

/** The process probe of this machine, read once. */
export function localProbe(): ProcessProbe {
  cachedProbe ??= {
    host: hostName(),
    boot: readText('/proc/sys/kernel/random/boot_id'),
    pidNs: readLink('/proc/self/ns/pid'),
    // A killed process stays a zombie until its parent reaps it: it holds nothing any more.
    isAlive: (pid) => isProcessAlive(pid) && procStatFields(pid)?.[0] !== 'Z',
    startOf: (pid) => procStatFields(pid)?.[19],
  };
  return cachedProbe;
}
let cachedProbe: ProcessProbe | undefined;

/**
 * This machine's name, as node:os gives it: from the binding node:os is built on, which answers so on
 * Node 20 and 22, and from node:os itself on any Node where it does not. Loading node:os cost every
 * command that takes a lock (`status`, `list`, `snapshot`) about 2M instructions of its start (issue 26).
 */
function hostName(): string {
  try {
    const name = nodeBinding<{ getHostname?: (context: object) => unknown }>('os').getHostname?.({});
    if (typeof name === 'string' && name !== '') return name;
  } catch {
    // No such binding here: node:os says.
  }
  return hostname();
}

/** This process as a lock owner, taking the lock now. */
export function ownerRecord(now: number): LockOwner {
  const probe = localProbe();
  const start = procStatFields(process.pid)?.[19];
  return {
    pid: process.pid,
    at: now,
    host: probe.host,
    ...(probe.boot ? { boot: probe.boot } : {}),
    ...(probe.pidNs ? { pidNs: probe.pidNs } : {}),
    ...(start ? { start } : {}),
  };
}

/** Whether a process with this pid exists (EPERM means it does, as another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The fields of /proc/<pid>/stat from the third on (state first; the start time is 19 further), split
 * after the command name, which may itself hold spaces and parentheses. `undefined` without /proc.
 */
function procStatFields(pid: number): string[] | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : undefined;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function readLink(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}
