/** What Setup shows for the archive: folders found, capture running, retention, the activity database, file names. */
import type { HealthCheck, SourceHealth } from '../../../../shared/frame.ts';
import type { ActivityProvider } from './activities.ts';
import type { ArchiveIndex } from './archiveIndex.ts';
import type { ManicTimeLocation } from './dataDir.ts';
import { DEFAULT_RETENTION_DAYS, REMEDIATION_CAPTURE, REMEDIATION_RETENTION, SETTINGS_PATH } from './reasons.ts';
import { SOURCE } from './rows.ts';

export interface HealthDeps {
  index: ArchiveIndex;
  locate: () => ManicTimeLocation;
  activities: (loc: ManicTimeLocation) => ActivityProvider;
  now: () => Date;
  exists: (path: string) => boolean;
}

export async function archiveHealth(d: HealthDeps): Promise<SourceHealth> {
  const { index, now, exists } = d;
  try {
    if (!index.checked) await index.refresh(new AbortController().signal);
  } catch {
    // Reported below from what is known.
  }
  const loc = d.locate();
  if (!index.folderFound) index.updateRoots(loc);
  const folderFound = index.folderFound;
  const act = d.activities(loc);
  const range = index.range();
  const nowMs = now().getTime();
  const checks: HealthCheck[] = [];
  const looked = loc.candidates.map((c) => c.path).join(', ');

  checks.push(
    loc.dataDirExists
      ? { id: 'manictime.folder', label: 'ManicTime data folder found', status: 'ok', detail: `${loc.dataDir} (${loc.origin})` }
      : {
          id: 'manictime.folder',
          label: 'ManicTime data folder found',
          status: loc.screenshotsDirFromSettings && folderFound ? 'warning' : 'error',
          detail: `not found (looked in ${looked || 'no candidate'})`,
          fix: 'Install ManicTime, or set manictime.dataDir (or the MANICTIME_DATA_DIR environment variable) to its data folder.',
        },
  );
  checks.push(
    folderFound
      ? { id: 'manictime.screenshots', label: 'Screenshots folder found', status: 'ok', detail: loc.screenshotsDir }
      : {
          id: 'manictime.screenshots',
          label: 'Screenshots folder found',
          status: 'error',
          detail: loc.screenshotsDir ? `${loc.screenshotsDir} does not exist` : 'there is no Screenshots folder without a ManicTime data folder',
          fix: loc.screenshotsDir
            ? `ManicTime creates it once screenshots are on (${SETTINGS_PATH}). If ManicTime keeps screenshots elsewhere, set manictime.screenshotsDir.`
            : 'Find the ManicTime data folder first (see above).',
        },
  );
  const ageH = range.total ? (nowMs - range.lastMs) / 3_600_000 : Number.POSITIVE_INFINITY;
  checks.push(
    range.total === 0
      ? { id: 'manictime.capture', label: 'Recent screenshots', status: 'error', detail: 'ManicTime has saved no screenshots here yet.', fix: REMEDIATION_CAPTURE }
      : ageH > 24
        ? {
            id: 'manictime.capture',
            label: 'Recent screenshots',
            status: 'warning',
            detail: `The newest screenshot is ${age(ageH)} old: ManicTime is not running, or its screenshots were turned off.`,
            fix: `Start ManicTime, and check that screenshots are on in ${SETTINGS_PATH}.`,
          }
        : { id: 'manictime.capture', label: 'Recent screenshots', status: 'ok', detail: `${range.total} screenshots; the newest ${Math.max(0, Math.round(ageH * 60))} min ago` },
  );
  const spanDays = range.total ? (range.lastMs - range.firstMs) / 86_400_000 : 0;
  checks.push(
    range.total === 0
      ? { id: 'manictime.retention', label: 'Screenshot retention', status: 'unknown', detail: 'no screenshots yet' }
      : spanDays <= DEFAULT_RETENTION_DAYS + 0.5
        ? {
            id: 'manictime.retention',
            label: 'Screenshot retention',
            status: 'warning',
            detail: `screenshots span ${spanDays.toFixed(1)} days (ManicTime keeps ${DEFAULT_RETENTION_DAYS} by default)`,
            fix: REMEDIATION_RETENTION,
          }
        : { id: 'manictime.retention', label: 'Screenshot retention', status: 'ok', detail: `screenshots span ${spanDays.toFixed(1)} days` },
  );
  // Probe the database once so health reflects it even before any listing.
  if (act.status().state === 'ok' && loc.dbPath && exists(loc.dbPath)) await act.segments(nowMs - 60_000, nowMs);
  const as = act.status();
  checks.push(
    as.state === 'ok'
      ? { id: 'manictime.activity', label: 'Activity database readable', status: 'ok', detail: loc.dbPath }
      : {
          id: 'manictime.activity',
          label: 'Activity database readable',
          status: 'warning',
          detail: as.detail ?? as.state,
          fix: 'Without ManicTimeReports.db, activity sampling falls back to intervals and entries carry no app/document. Check manictime.dataDir.',
        },
  );
  const { unknown, files, unfamiliar: namesBad } = index.names();
  const unknownSamples = index.unknownSamples;
  checks.push(
    namesBad
      ? {
          id: 'manictime.names',
          label: 'Screenshot file names recognised',
          status: 'warning',
          detail: `${unknown} of ${files} names not recognised${unknownSamples.length ? ` (e.g. ${unknownSamples.slice(0, 2).join(', ')})` : ''}`,
          fix: 'A newer ManicTime may name screenshots differently: update Sightline. Recognised screenshots keep working.',
        }
      : { id: 'manictime.names', label: 'Screenshot file names recognised', status: 'ok', detail: `${files - unknown} of ${files}` },
  );

  const problem = checks.find((c) => c.status === 'error') ?? checks.find((c) => c.status === 'warning');
  return {
    source: SOURCE,
    enabled: true,
    available: folderFound,
    degraded: Boolean(problem),
    ...(problem ? { reason: `${problem.label}: ${problem.detail ?? problem.status}`, remediation: problem.fix ?? `Check ${SETTINGS_PATH}.` } : {}),
    checks,
  };
}

/** An age as a person says it: hours up to two days, then days, then months. */
function age(hours: number): string {
  if (hours < 48) return `${Math.round(hours)} hours`;
  const days = Math.round(hours / 24);
  return days < 60 ? `${days} days` : `${Math.round(days / 30.4)} months`;
}
