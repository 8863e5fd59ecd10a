import { CheckpointError } from '../core/errors.js';
import { messageFieldAt, messageForScan } from '../core/handoff-message.js';
import { CHECKPOINT_FILE } from '../core/paths.js';
import { textFromBytes } from '../core/raw-path.js';
import { redactPath, redactText } from '../core/redact.js';
import { byteViews } from '../core/secrets/byte-views.js';
import type { DetectorConfig } from '../core/secrets/detect.js';
import { advertisedObjects } from '../git/handoff-remote.js';
import {
  type ObjectContext,
  objectSizes,
  objectsToPush,
  parseTree,
  presentObjects,
  readObjects,
} from '../git/objects.js';
import { runGit } from '../git/run.js';
import type { AppDeps } from './deps.js';
import { loadScanConfig, locatePathSecrets, locateSecrets } from './scan.js';

/**
 * The handoff's secret gate. It scans exactly what `git push` will send, read from the objects
 * themselves: every commit (its message), tree (the names in it) and blob (content and link targets)
 * reachable from the handoff commit that the remote is not known to have. Nothing is re-read from disk,
 * so a file that changes while the push runs cannot slip past.
 *
 * Security: why scan the unpushed history rather than push a handoff whose parent is the remote's own
 * commit: the handoff must carry its base commit (the receiver checks it out, and a tree on another
 * parent would show the local commits' changes as uncommitted edits), so those commits travel and are
 * scanned like everything else.
 *
 * "Known to have": what the remote advertises right now (`git ls-remote`, one round-trip before the
 * push) and this clone holds, as `git push` itself decides. An advertised object this clone lacks cannot
 * be excluded, so more is scanned than sent, never less. A ref the remote deletes in the moment between
 * that call and the push could make the push send again what that remote held a moment before.
 */

/** Where a finding is. `file` is a path, or `commit <oid>` for a commit; never the secret. */
export interface GateFinding {
  file: string;
  line: number;
  column: number;
  rule: string;
  /**
   * In a file's name, a symlink's target, a commit's message (`handoff message`: this handoff's own, the
   * tool's metadata with the goal's first line and the branch) or its headers (author, committer)
   * rather than a file's content.
   */
  where?: 'name' | 'link target' | 'message' | 'handoff message' | 'header';
  /**
   * For content the handoff's own tree does not hold (a file committed, then removed or changed in a
   * later local commit): the commit that brought it, which the push sends too (12 hex digits).
   */
  commit?: string;
  /**
   * For a finding in this handoff's own message: the metadata's field on that line (`name`, `branch`,
   * `author`, `goal`, `leftOut`, ...), and for `leftOut` the left-out path it names, redacted as names are.
   */
  field?: string;
  path?: string;
}

/** More than this to scan is refused: the clone does not know what the remote has (run git fetch). */
export const GATE_MAX_BYTES = 512 * 1024 * 1024;

const LINK_MODE = '120000';

export async function scanHandoffPush(
  deps: AppDeps,
  params: {
    root: string;
    remote: string;
    commit: string;
    storeObjects: string;
    checkpoint: string | null;
    /** The file the checkpoint's text is from, for its findings' lines: its backup when the file is unusable. */
    checkpointFile?: string;
  },
): Promise<GateFinding[]> {
  const config = await loadScanConfig(deps, params.root);
  const context: ObjectContext = { root: params.root, storeObjects: params.storeObjects };
  // Security: what the remote advertises now, never this clone's remote-tracking refs: those may be stale
  // (a remote whose URL changed, a branch deleted there and never pruned here), and git push only skips
  // what the remote advertises.
  const known = await presentObjects(context, await advertisedObjects(params.root, params.remote));
  const objects = await objectsToPush(context, params.commit, known);
  const sizes = await objectSizes(
    context,
    objects.map((object) => object.oid),
  );
  const total = [...sizes.values()].reduce((sum, { size }) => sum + size, 0);
  if (total > GATE_MAX_BYTES)
    throw new CheckpointError(
      'INVALID_INPUT',
      `push: the handoff would send ${Math.round(total / 1024 / 1024)} MB that remote '${params.remote}' is not known to have (more than the secret scan's ${GATE_MAX_BYTES / 1024 / 1024} MB); run git fetch ${params.remote} so that only what is new is scanned (nothing was pushed)`,
    );

  const findings = new Findings(config);
  if (params.checkpoint !== null) findings.scan(params.checkpoint, params.checkpointFile ?? CHECKPOINT_FILE);
  // rev-list names each object by its path, cut at the first line feed: the trees name their entries
  // whole. They are read before what they hold, so an entry's path is known before its object is read.
  const pathOf = new Map(objects.map((object) => [object.oid, object.path]));
  const named = new Map<string, string>();
  const nameOf = (oid: string) => named.get(oid) ?? pathOf.get(oid);
  const links = new Set<string>();
  const blobOf = new Map<GateFinding, string>();
  const oidBytes = params.commit.length / 2;
  await readObjects(
    context,
    objects.map((object) => object.oid),
    sizes,
    ({ oid, type, content }) => {
      if (type === 'commit')
        scanCommit(findings, oid, content, oid === params.commit ? { checkpoint: params.checkpoint } : null);
      else if (type === 'tree') {
        const entries = parseTree(content, oidBytes);
        const folder = nameOf(oid) ?? '';
        const full = (name: Buffer) => (folder ? `${folder}/` : '') + textFromBytes(name);
        for (const entry of entries) {
          if (entry.mode === LINK_MODE) links.add(entry.oid);
          if (!named.has(entry.oid)) named.set(entry.oid, full(entry.name));
        }
        // One text per tree, one name a line (a name with line feeds takes several): a line found names
        // the entry that starts at or before it.
        const names = Buffer.concat(entries.flatMap((entry) => [entry.name, Buffer.from('\n')]));
        const firstLines: number[] = [];
        let next = 1;
        for (const entry of entries) {
          firstLines.push(next);
          next += 1 + entry.name.filter((byte) => byte === 10).length;
        }
        const entryAt = (line: number) => {
          let index = 0;
          while (index + 1 < firstLines.length && (firstLines[index + 1] ?? 0) <= line) index++;
          return entries[index]?.name ?? Buffer.alloc(0);
        };
        findings.scanBytes(names, (line) => full(entryAt(line)), 'name');
      } else if (type === 'blob') {
        const file = nameOf(oid) || oid;
        const before = findings.list.length;
        findings.scanBytes(content, file, links.has(oid) ? 'link target' : undefined);
        for (const finding of findings.list.slice(before)) blobOf.set(finding, oid);
      }
    },
  );
  await nameCommits(context, params.commit, known, blobOf);
  return findings.list;
}

/**
 * A finding in content the handoff's tree does not hold names the commit that brought it: "cfg.py:1"
 * alone pointed at a file no longer there (trial report, 2026-12-06). The oldest commit to the handoff
 * that adds or removes that blob, from those the remote is not known to have.
 */
async function nameCommits(
  context: ObjectContext,
  commit: string,
  known: readonly string[],
  blobOf: ReadonlyMap<GateFinding, string>,
): Promise<void> {
  if (blobOf.size === 0) return;
  const git = (args: string[], input?: string) =>
    runGit(args, {
      cwd: context.root,
      extraEnv: { GIT_ALTERNATE_OBJECT_DIRECTORIES: context.storeObjects },
      ...(input === undefined ? {} : { input }),
    });
  const inTree = new Set(
    (await git(['ls-tree', '-r', '-z', '--full-tree', commit])).stdout
      .split('\0')
      .map((entry) => /^\d{6} blob ([0-9a-f]+)\t/.exec(entry)?.[1]),
  );
  const tips = `${[commit, ...known.map((oid) => `^${oid}`)].join('\n')}\n`;
  const brought = new Map<string, string | undefined>();
  for (const [finding, oid] of blobOf) {
    if (inTree.has(oid)) continue;
    if (!brought.has(oid)) {
      const commits = (await git(['log', '--format=%H', `--find-object=${oid}`, '--stdin'], tips)).stdout
        .split('\n')
        .filter(Boolean);
      brought.set(oid, commits.at(-1));
    }
    const by = brought.get(oid);
    if (by) finding.commit = by.slice(0, 12);
  }
}

/**
 * A commit's headers and its message, each scanned on its own: a finding's line is the message's own
 * (line 1 its subject), not the raw object's with its tree and parent lines before it. `own`: the
 * handoff's own commit, whose message is the tool's metadata; its checkpoint line is left to the scan of
 * the checkpoint itself, and a finding there says it is this handoff's message.
 */
function scanCommit(
  findings: Findings,
  oid: string,
  content: Buffer,
  own: { checkpoint: string | null } | null,
): void {
  const label = `commit ${oid.slice(0, 12)}`;
  const end = content.indexOf('\n\n');
  const headers = end === -1 ? content : content.subarray(0, end);
  const message = end === -1 ? Buffer.alloc(0) : content.subarray(end + 2);
  // The tree and parents are git's own ids of objects scanned themselves; the rest (author, committer, a
  // signature, an embedded tag) is scanned, the id lines emptied so that the others keep their numbers.
  const rest = headers
    .toString('latin1')
    .split('\n')
    .map((line) => (/^(?:tree|parent) [0-9a-f]+$/.test(line) ? '' : line))
    .join('\n');
  findings.scanBytes(Buffer.from(rest, 'latin1'), label, 'header');
  if (own === null) findings.scanBytes(message, label, 'message');
  else {
    const text = message.toString('utf8');
    const from = findings.list.length;
    findings.scanBytes(
      Buffer.from(messageForScan(text, own.checkpoint)),
      label,
      'handoff message',
      (line) => messageFieldAt(text, line)?.field === 'leftOut',
    );
    for (const finding of findings.list.slice(from)) {
      const at = messageFieldAt(text, finding.line);
      if (at === null) continue;
      finding.field = at.field;
      if (at.path !== undefined) finding.path = findings.redact(at.path);
    }
  }
}

/** Findings of one scan, each said once, with any secret in its own label (a file's name) redacted. */
class Findings {
  readonly list: GateFinding[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly config: DetectorConfig) {}

  /** A name as findings show it: any secret in it redacted, a token bare in a path too (see redactPath). */
  redact(name: string): string {
    return redactPath(redactText(name, this.config).text, this.config).text;
  }

  /**
   * `isPathLine`: the lines that are paths (every name; the left-out paths of a handoff's message), where
   * a token bare in the path is a secret too (`backup_ghp_….txt`: see findPathSecrets).
   */
  scan(
    text: string,
    label: string | ((line: number) => string),
    where?: GateFinding['where'],
    isPathLine: ((line: number) => boolean) | undefined = where === 'name' ? () => true : undefined,
  ): void {
    const inPaths = isPathLine
      ? locatePathSecrets(text, this.config).filter((finding) => isPathLine(finding.line))
      : [];
    for (const finding of [...locateSecrets(text, this.config), ...inPaths]) {
      const raw = typeof label === 'string' ? label : label(finding.line);
      const file = this.redact(raw);
      const line = typeof label === 'string' ? finding.line : 1;
      const column = typeof label === 'string' ? finding.column : 1;
      const key = `${file}\n${where}\n${line}\n${finding.rule}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.list.push({ file, line, column, rule: finding.rule, ...(where ? { where } : {}) });
    }
  }

  /** Bytes in each way they can be read (UTF-8, UTF-16, byte for byte). */
  scanBytes(
    bytes: Uint8Array,
    label: string | ((line: number) => string),
    where?: GateFinding['where'],
    isPathLine?: (line: number) => boolean,
  ): void {
    for (const view of byteViews(bytes)) this.scan(view.text, label, where, isPathLine);
  }
}
