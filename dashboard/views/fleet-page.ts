import type { CodeDeploy } from '../../src/insight/index.js';
import { describeVersions, type FleetMember, type FleetSnapshot } from '../../src/ops/index.js';
import type { DeploymentHealth } from '../deployment-health.js';
import { deploysSection } from './deploys-section.js';
import { formatDuration, html, type SafeHtml } from './html.js';
import { layout, type PageContext } from './layout.js';
import { labelledTime, timeAt, zoneFor } from './time-zone.js';

/** `/fleet`: scheduler replicas and workers (alive, then dead within the last hour), what they serve, and the stale schedules. */
export function fleetPage(
  ctx: PageContext,
  fleet: FleetSnapshot,
  health: DeploymentHealth,
  deploys: readonly CodeDeploy[] = [],
): string {
  const served = Object.entries(fleet.served);
  const zone = zoneFor(ctx.zone);
  const idLinks = (ids: string[]) =>
    ids.map(
      (id, i) => html`${i ? ', ' : ''}<a href="${ctx.base}/schedules/${encodeURIComponent(id)}">${id}</a>`,
    );
  const body = html`
<h1>Fleet</h1>
<p id="fleet-summary" data-replicas="${fleet.replicas}" data-workers="${fleet.workers}">
  <b>${fleet.replicas}</b> scheduler replica${fleet.replicas === 1 ? '' : 's'} alive,
  <b>${fleet.workers}</b> worker${fleet.workers === 1 ? '' : 's'} alive.
  ${fleet.replicas === 0 ? html`<span class="pill late" data-badge="no-replica">no scheduler replica alive: nothing is enqueued</span>` : ''}
</p>
${
  fleet.mixedVersions
    ? html`<p id="fleet-versions" data-badge="mixed-versions" data-versions="${Object.keys(fleet.versions).join(' ')}">
  <span class="pill late">mixed versions</span> Live processes run different bullbeat versions:
  ${describeVersions(fleet.versions)}. Finish the rolling upgrade (or stop the processes left behind):
  a process of an older release refuses a newer data format at its next start (<code>docs/upgrading.md</code>).
</p>`
    : ''
}
<p id="health-summary" data-late="${health.late}" data-failing="${health.failing}" data-errored="${health.errored}">
  Late: <b>${health.late}</b>${health.late ? html` (${idLinks(health.lateIds)})` : ''} ·
  failing: <b>${health.failing}</b>${health.failing ? html` (${idLinks(health.failingIds)})` : ''} ·
  errored: <b>${health.errored}</b>${health.errored ? html` (${idLinks(health.erroredIds)})` : ''}
</p>
<table id="fleet">
<thead><tr><th>role</th><th>state</th><th>host</th><th>pid</th><th>version</th><th>queues: job names handled there</th><th>started</th><th>last beat</th></tr></thead>
<tbody>
${fleet.members.map(
  (m) => html`<tr data-member="${m.id}" data-role="${m.role}" data-alive="${String(m.alive)}">
  <td>${m.role}</td>
  <td><span class="pill ${m.alive ? 'active' : 'failed'}">${m.alive ? 'alive' : 'dead'}</span></td>
  <td>${m.host}</td><td class="num">${m.pid}</td><td>${m.version}</td>
  <td data-handles>${handlesCell(m)}</td>
  <td>${timeAt(m.startedAt, zone)}</td>
  <td title="${labelledTime(m.lastBeat, zone)}">${formatDuration(fleet.now - m.lastBeat)} ago</td>
</tr>`,
)}
</tbody>
</table>
${fleet.members.length === 0 ? html`<p class="muted">No process has registered: scheduler replicas and workers started by <code>bullbeat</code> register here with a heartbeat.</p>` : ''}
<h2>Job names with a live handler</h2>
${
  served.length === 0
    ? html`<p class="muted" id="served">None: no live worker. Occurrences enqueued now wait in their queues.</p>`
    : html`<table id="served"><thead><tr><th>queue</th><th>job names</th></tr></thead><tbody>
${served.map(([q, names]) => html`<tr data-queue="${q}"><td>${q}</td><td>${names.length > 0 ? names.join(', ') : html`<span class="muted">none</span>`}</td></tr>`)}
</tbody></table>`
}
${deploysSection(ctx, deploys)}`;
  return layout(ctx, 'Fleet', 'fleet', body);
}

/**
 * A member's queues, each with the job names it handles there (a worker), one queue a line; for one
 * registered by an older bullbeat (no per-queue names), its queues, then every handler it has.
 */
function handlesCell(m: FleetMember): SafeHtml {
  if (m.role !== 'worker') return html`<span class="muted">—</span>`;
  if (!m.handles) {
    return html`${m.queues.join(', ')}<div class="sub" title="registered by an older bullbeat: job names not recorded per queue">handlers: ${m.handlers.join(', ') || 'none'}</div>`;
  }
  return html`${Object.entries(m.handles).map(
    ([q, names]) =>
      html`<div data-queue="${q}"><b>${q}</b>: ${names.length > 0 ? names.join(', ') : html`<span class="muted">none</span>`}</div>`,
  )}`;
}
