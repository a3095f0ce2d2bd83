/** Human-readable output of the CLI: aligned tables and the plan with its reasons. */
import type { ShadowComparison } from '../core/attacher/shadow.js';
import type { ActualState } from '../core/types.js';
import type { PassReport } from '../reconcile/pass/types.js';

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export interface StatusRow {
  volume: string;
  node: string;
  state: string;
  device: string;
  mounted: string;
  operation: string;
  backoff: string;
  /** The last failure of an operation backing off on this node (e.g. EC2's UnauthorizedOperation), or `-`. */
  lastError: string;
}

export function statusRows(actual: ActualState, now: number): StatusRow[] {
  const rows: StatusRow[] = [];
  for (const record of [...actual.values()].sort((a, b) => a.volumeId.localeCompare(b.volumeId))) {
    // A node whose attach keeps failing has no attachment yet, only a backoff: it gets a row too.
    const backingOff = Object.keys(record.backoff).map((key) => key.slice(key.indexOf(':') + 1));
    const nodes = new Set([
      ...Object.keys(record.attachments),
      ...Object.values(record.operations).map((op) => op.nodeName),
      ...backingOff,
    ]);
    for (const node of [...nodes].sort()) {
      const attachment = record.attachments[node];
      const op = Object.values(record.operations).find((o) => o.nodeName === node);
      const backoffs = Object.entries(record.backoff).filter(([key]) => key.endsWith(`:${node}`));
      rows.push({
        volume: record.volumeId,
        node,
        state: attachment?.state ?? (backoffs.some(([key]) => key.startsWith('attach:')) ? 'not attached' : '-'),
        device: attachment?.device ?? '-',
        mounted: attachment === undefined ? '-' : attachment.mounted ? 'yes' : 'no',
        operation:
          op === undefined
            ? '-'
            : `${op.kind} ${op.leaseExpiresAt > now ? `lease ${Math.ceil((op.leaseExpiresAt - now) / 1000)} s` : 'lease expired'}`,
        backoff:
          backoffs
            .map(
              ([key, b]) =>
                `${key.split(':')[0]} ×${b.failures}${b.notBefore > now ? ` for ${Math.ceil((b.notBefore - now) / 1000)} s` : ''}`,
            )
            .join(', ') || '-',
        lastError: backoffs.map(([, b]) => b.lastError).join('; ') || '-',
      });
    }
  }
  return rows;
}

/** The table shows an error's first sentence (EC2's refusal ends in a long encoded message); --json has all of it. */
function shortError(error: string): string {
  const first = error.split(/(?<=\.) /)[0] ?? error;
  return first.length > 100 ? `${first.slice(0, 99)}…` : first;
}

export function formatStatus(rows: StatusRow[]): string {
  if (rows.length === 0) return 'No volumes in the actual state.';
  return table(
    ['VOLUME', 'NODE', 'STATE', 'DEVICE', 'MOUNTED', 'OPERATION', 'BACKOFF', 'LAST ERROR'],
    rows.map((r) => [r.volume, r.node, r.state, r.device, r.mounted, r.operation, r.backoff, shortError(r.lastError)]),
  );
}

export function formatPass(report: PassReport): string {
  const lines: string[] = [];
  const verb = report.dryRun ? 'would' : 'did';
  if (!report.clusterComplete) lines.push(`! ${report.clusterError ?? 'the cluster read was incomplete'}`);
  lines.push(
    `Pass ${report.passId} (${report.kind}${report.dryRun ? ', dry run' : ''}): ${report.desiredAttachments} desired, ${report.actualAttachments} actual attachments${report.verified ? ', verified against EC2' : ''}.`,
  );
  if (report.actions.length === 0) lines.push(`Nothing to do.`);
  else {
    lines.push(`Actions it ${verb} take:`);
    const outcome = (i: number) =>
      report.dryRun
        ? ''
        : (report.results.find(
            (r) =>
              r.kind === report.actions[i]?.kind &&
              r.volumeId === report.actions[i]?.volumeId &&
              r.nodeName === report.actions[i]?.nodeName,
          )?.outcome ?? '');
    lines.push(
      table(
        ['KIND', 'VOLUME', 'NODE', 'OUTCOME', 'REASON'],
        report.actions.map((a, i) => [a.kind, a.volumeId, a.nodeName, outcome(i), a.reason]),
      ),
    );
  }
  for (const held of report.heldBack)
    lines.push(`held back [${held.code}]: detach ${held.action.volumeId} from ${held.action.nodeName}: ${held.reason}`);
  for (const waiting of report.deferred)
    lines.push(`waiting [${waiting.code}]: ${waiting.operation} ${waiting.volumeId} on ${waiting.nodeName}: ${waiting.reason}`);
  for (const result of report.results.filter((r) => r.outcome !== 'ok'))
    lines.push(`${result.outcome}: ${result.kind} ${result.volumeId} on ${result.nodeName}: ${result.detail}`);
  for (const skipped of report.skipped)
    lines.push(
      `skipped [${skipped.code}]: ${skipped.pod.namespace}/${skipped.pod.name} volume ${skipped.podVolumeName}: ${skipped.reason}`,
    );
  for (const missing of report.notAttached) lines.push(`not attached: ${missing.volumeId} on ${missing.nodeName}: ${missing.state}`);
  for (const problem of report.problems) lines.push(`problem (${problem.source}): ${problem.message}`);
  lines.push(
    report.converged
      ? 'Converged: every desired attachment is attached and reported.'
      : 'Not converged: see above (`ebs-attach-detach explain <object>` follows one object through).',
  );
  return lines.join('\n');
}

/** `shadow`: one row per VolumeAttachment (and per EC2 attachment none names), then the counts. */
export function formatShadow(comparison: ShadowComparison): string {
  const counts = Object.entries(comparison.counts).filter(([, n]) => n > 0);
  const summary = `${comparison.rows.length} row(s): ${counts.map(([verdict, n]) => `${n} ${verdict}`).join(', ') || 'nothing to compare'}.`;
  if (comparison.rows.length === 0) return `No VolumeAttachment of ebs.csi.aws.com and no EBS volume attached.\n${summary}`;
  const rows = comparison.rows.map((r) => [
    r.volumeAttachment ?? '-',
    r.volumeId ?? '-',
    r.nodeName ?? '-',
    r.sidecar,
    r.finalizer ? 'yes' : 'no',
    r.nodeIdAnnotation ?? '-',
    r.ec2,
    r.planned,
    r.verdict,
    r.detail ?? '',
  ]);
  const headers = ['VOLUMEATTACHMENT', 'VOLUME', 'NODE', 'SIDECAR', 'FINALIZER', 'NODE-ID', 'EC2', 'WE WOULD', 'VERDICT', 'WHY'];
  return `${table(headers, rows)}\n${summary}`;
}
