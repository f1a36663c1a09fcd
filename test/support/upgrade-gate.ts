/**
 * The upgrade gate's judgement: what a deployed stack would see if it moved from the baseline's
 * template to today's, classified with aws-cdk's own diff engine (`@aws-cdk/cloudformation-diff`,
 * which knows each property's update behaviour from the CloudFormation resource specification).
 *
 * Two kinds of change hurt a deployed stack silently, and each is a hazard here:
 * - a stateful resource replaced, or gone (a token secret, a queue, the table, the bus, the
 *   journal, anything kept under a Retain policy): under RETAIN the old one is orphaned and a new,
 *   empty one takes its place;
 * - any change to a `Custom::Bank*` resource: CloudFormation sends its provider a Create, an
 *   Update or a Delete, and a registration logs in and talks to the bank on the next deploy.
 * A hazard passes only when docs/changes.md lists it, with its migration, against this baseline.
 * Everything else (an update in place, an added alarm, a new statement) passes and is listed.
 */
import { fullDiff, ResourceImpact, type ResourceDifference } from '@aws-cdk/cloudformation-diff';

/** What a change does to a deployed stack that must be written down before it ships. */
export enum UpgradeHazard {
  /** A stateful resource is replaced: a new, empty one takes its place. */
  REPLACE = 'replace',
  /** A stateful resource may be replaced (a property whose update may need one). */
  MAY_REPLACE = 'may-replace',
  /** A stateful resource is gone from the template (removed, or its logical ID changed). */
  REMOVE = 'remove',
  /** A stateful resource's type changed (CloudFormation refuses it, or replaces it). */
  TYPE_CHANGE = 'type-change',
  /** A stateful resource no longer keeps a Retain (or Snapshot) deletion or replacement policy. */
  RETENTION = 'retention',
  /** A Custom::Bank* resource's properties change: its provider gets an Update. */
  REREGISTER = 'reregister',
  /** A Custom::Bank* resource is added: its provider gets a Create. */
  REGISTER = 'register',
  /** A Custom::Bank* resource is gone (removed, or its logical ID changed): its provider gets a Delete. */
  UNREGISTER = 'unregister',
}

const HAZARD_WORDS: Record<UpgradeHazard, string> = {
  [UpgradeHazard.REPLACE]: 'would be replaced (a new, empty resource takes its place)',
  [UpgradeHazard.MAY_REPLACE]: 'may be replaced (a new, empty resource may take its place)',
  [UpgradeHazard.REMOVE]:
    'is gone from the template (removed, or its logical ID changed): the deployed one is deleted or orphaned',
  [UpgradeHazard.TYPE_CHANGE]: 'changes its resource type',
  [UpgradeHazard.RETENTION]: 'no longer keeps a Retain policy: a later removal or replacement deletes its data',
  [UpgradeHazard.REREGISTER]:
    'changes its properties: its provider gets an Update on the next deploy (a registration logs in and talks to the bank)',
  [UpgradeHazard.REGISTER]:
    'is added: its provider gets a Create on the next deploy (a registration talks to the bank)',
  [UpgradeHazard.UNREGISTER]:
    'is gone from the template (removed, or its logical ID changed): its provider gets a Delete (a registration is removed at the bank)',
};

/**
 * The resource types whose replacement loses what a deployed stack holds: secrets (the tokens the
 * bank sends), queues (stored notifications), the table (what was published), the bus and its
 * archive (consumers' rules, archived events), buckets (the journal), keys (what they encrypt),
 * topics (on-call subscriptions), backup vaults, log groups, the Pix API's custom domain (where the
 * provider's DNS points) and its certificate. Anything kept under a Retain policy counts too.
 */
export const STATEFUL_TYPES: ReadonlySet<string> = new Set([
  'AWS::SecretsManager::Secret',
  'AWS::SQS::Queue',
  'AWS::DynamoDB::Table',
  'AWS::DynamoDB::GlobalTable',
  'AWS::Events::EventBus',
  'AWS::Events::Archive',
  'AWS::S3::Bucket',
  'AWS::KMS::Key',
  'AWS::SNS::Topic',
  'AWS::Backup::BackupVault',
  'AWS::Logs::LogGroup',
  'AWS::ApiGateway::DomainName',
  'AWS::CertificateManager::Certificate',
]);

/** The custom resources whose provider acts on every Create, Update and Delete: the bank's. */
export const BANK_CUSTOM_RESOURCE = /^Custom::Bank/;

const RETAINING = new Set(['Retain', 'RetainExceptOnCreate', 'Snapshot']);

interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
  readonly Metadata?: Record<string, unknown>;
}

/** A CloudFormation template, as far as the gate reads it. */
export interface TemplateJson {
  readonly Resources?: Record<string, TemplateResource>;
  readonly Outputs?: Record<string, unknown>;
  readonly [key: string]: unknown;
}

/** One resource's change between the baseline and today. */
export interface UpgradeChange {
  readonly stack: string;
  readonly logicalId: string;
  readonly type: string;
  /** The construct path (`aws:cdk:path`), where the template has it. */
  readonly path?: string;
  /** Set when the change must be listed in docs/changes.md. */
  readonly hazard?: UpgradeHazard;
  /** What changes, in words: "added", "updated in place: Environment", "replaced: ObjectLockEnabled". */
  readonly what: string;
}

function retains(resource: TemplateResource | undefined): boolean {
  return (
    resource !== undefined &&
    (RETAINING.has(resource.DeletionPolicy ?? '') || RETAINING.has(resource.UpdateReplacePolicy ?? ''))
  );
}

function isStateful(resource: TemplateResource | undefined): boolean {
  return resource !== undefined && (STATEFUL_TYPES.has(resource.Type) || retains(resource));
}

function pathOf(resource: TemplateResource | undefined): string | undefined {
  const path = resource?.Metadata?.['aws:cdk:path'];
  return typeof path === 'string' ? path : undefined;
}

/** The properties of a change that need the resource replaced (or may), else every changed one. */
function changedProperties(change: ResourceDifference, replacing: boolean): string[] {
  const updates = Object.entries(change.propertyUpdates);
  const named = replacing
    ? updates.filter(
        ([, diff]) =>
          diff.changeImpact === ResourceImpact.WILL_REPLACE || diff.changeImpact === ResourceImpact.MAY_REPLACE,
      )
    : updates;
  return (named.length > 0 ? named : updates).map(([name]) => name).sort();
}

function classify(
  change: ResourceDifference,
  replacements: readonly string[],
): { hazard?: UpgradeHazard; what: string } {
  const before = change.oldValue as TemplateResource | undefined;
  const after = change.newValue as TemplateResource | undefined;
  const bank = BANK_CUSTOM_RESOURCE.test(before?.Type ?? '') || BANK_CUSTOM_RESOURCE.test(after?.Type ?? '');
  const stateful = bank || isStateful(before) || isStateful(after);
  if (change.isAddition) return { hazard: bank ? UpgradeHazard.REGISTER : undefined, what: 'added' };
  if (change.isRemoval) {
    const hint = replacements.length > 0 ? `; added beside it: ${replacements.join(', ')}` : '';
    return {
      hazard: bank ? UpgradeHazard.UNREGISTER : stateful ? UpgradeHazard.REMOVE : undefined,
      what: `removed${stateful ? hint : ''}`,
    };
  }
  if (change.resourceTypeChanged) {
    return {
      hazard: stateful ? UpgradeHazard.TYPE_CHANGE : undefined,
      what: `type ${change.oldResourceType} becomes ${change.newResourceType}`,
    };
  }
  const properties = Object.keys(change.propertyUpdates).length;
  if (bank && properties > 0)
    return {
      hazard: UpgradeHazard.REREGISTER,
      what: `properties change: ${changedProperties(change, false).join(', ')}`,
    };
  if (stateful && change.changeImpact === ResourceImpact.WILL_REPLACE) {
    return { hazard: UpgradeHazard.REPLACE, what: `replaced: ${changedProperties(change, true).join(', ')}` };
  }
  if (stateful && change.changeImpact === ResourceImpact.MAY_REPLACE) {
    return {
      hazard: UpgradeHazard.MAY_REPLACE,
      what: `may be replaced: ${changedProperties(change, true).join(', ')}`,
    };
  }
  if (retains(before) && !retains(after)) {
    return {
      hazard: UpgradeHazard.RETENTION,
      what: `DeletionPolicy ${before?.DeletionPolicy ?? '(none)'} becomes ${after?.DeletionPolicy ?? '(none)'}, UpdateReplacePolicy ${before?.UpdateReplacePolicy ?? '(none)'} becomes ${after?.UpdateReplacePolicy ?? '(none)'}`,
    };
  }
  const other = Object.keys(change.otherChanges).sort();
  const words = properties > 0 ? [`updated in place: ${changedProperties(change, false).join(', ')}`] : [];
  if (other.length > 0) words.push(`${other.join(', ')} changed`);
  return { what: words.join('; ') || 'changed' };
}

/**
 * Every resource that differs between a stack's baseline template and today's, classified. A stack
 * the baseline lacks is new (nothing deployed can be hurt); a stack gone today is compared with an
 * empty template, so each of its stateful resources and registrations is named.
 */
export function upgradeChanges(
  stack: string,
  baseline: TemplateJson | undefined,
  now: TemplateJson | undefined,
): UpgradeChange[] {
  if (baseline === undefined) return [];
  const diff = fullDiff(baseline, now ?? { Resources: {} });
  const added: Record<string, string[]> = {};
  diff.resources.forEachDifference((logicalId, change) => {
    if (change.isAddition) (added[change.newResourceType ?? ''] ??= []).push(logicalId);
  });
  const changes: UpgradeChange[] = [];
  diff.resources.forEachDifference((logicalId, change) => {
    const resource = (change.newValue ?? change.oldValue) as TemplateResource;
    const type = change.resourceTypeChanged ? `${change.oldResourceType} → ${change.newResourceType}` : resource.Type;
    const replacements = change.isRemoval ? (added[resource.Type] ?? []) : [];
    changes.push({
      stack,
      logicalId,
      type,
      path: pathOf(change.oldValue) ?? pathOf(resource),
      ...classify(change, replacements),
    });
  });
  return changes.sort((a, b) => a.logicalId.localeCompare(b.logicalId));
}

/** A change as the test prints it: the stack, the resource, its type and path, what changes and why it matters. */
export function describeChange(change: UpgradeChange): string {
  const where = `${change.stack}/${change.logicalId} (${change.type}${change.path ? `, ${change.path}` : ''})`;
  return change.hazard
    ? `${where} [${change.hazard}] ${HAZARD_WORDS[change.hazard]}: ${change.what}`
    : `${where}: ${change.what}`;
}

/** One row of docs/changes.md's table of intended breaks. */
export interface ListedBreak {
  /** The baseline commit the row is written against (a prefix of its hash). */
  readonly baseline: string;
  /** A stack name, `*` matching any run of characters. */
  readonly stack: string;
  /** A logical ID or a construct path, `*` matching any run of characters. */
  readonly resource: string;
  readonly hazard: UpgradeHazard;
  readonly migration: string;
  /** Where it is written, for messages: "docs/changes.md line N". */
  readonly line: number;
}

/** The heading of docs/changes.md's section whose table the gate reads. */
export const LISTED_BREAKS_HEADING = '## Changes that replace or re-register';

/**
 * The rows of the table under LISTED_BREAKS_HEADING (`| baseline | stack | resource | change |
 * migration |`, cells in backticks or not). A row the gate cannot read is a problem, never skipped.
 */
export function readListedBreaks(markdown: string): { breaks: ListedBreak[]; problems: string[] } {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === LISTED_BREAKS_HEADING);
  if (start < 0)
    return {
      breaks: [],
      problems: [
        `docs/changes.md has no section "${LISTED_BREAKS_HEADING}": the gate reads intended breaks from its table`,
      ],
    };
  const breaks: ListedBreak[] = [];
  const problems: string[] = [];
  const hazards = Object.values(UpgradeHazard) as string[];
  for (let i = start + 1; i < lines.length && !lines[i].startsWith('## '); i++) {
    const line = lines[i].trim();
    if (!line.startsWith('|')) continue;
    const cells = line
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1'));
    if (cells[0] === 'Baseline' || /^:?-+:?$/.test(cells[0])) continue;
    const at = `docs/changes.md line ${i + 1}`;
    const [baseline, stack, resource, hazard, migration] = cells;
    if (cells.length !== 5)
      problems.push(
        `${at}: a row has 5 cells (baseline, stack, resource, change, migration), this one has ${cells.length}`,
      );
    else if (!/^[0-9a-f]{7,40}$/.test(baseline))
      problems.push(`${at}: baseline "${baseline}" is not a commit hash (7 to 40 hex digits)`);
    else if (!hazards.includes(hazard)) problems.push(`${at}: change "${hazard}" is not one of ${hazards.join(', ')}`);
    else if (!stack || !resource)
      problems.push(`${at}: name the stack and the resource (\`*\` matches any run of characters)`);
    else if (migration.length < 20)
      problems.push(`${at}: say how a deployed stack migrates (the migration cell has ${migration.length} characters)`);
    else breaks.push({ baseline, stack, resource, hazard: hazard as UpgradeHazard, migration, line: i + 1 });
  }
  return { breaks, problems };
}

function glob(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/** Whether a listed break, written against `baselineCommit`, covers a change. */
export function covers(listed: ListedBreak, change: UpgradeChange, baselineCommit: string): boolean {
  return (
    baselineCommit.startsWith(listed.baseline) &&
    listed.hazard === change.hazard &&
    glob(listed.stack).test(change.stack) &&
    (glob(listed.resource).test(change.logicalId) ||
      (change.path !== undefined && glob(listed.resource).test(change.path)))
  );
}

/** The gate's verdict over every app's changes. */
export interface UpgradeVerdict {
  /** Hazards no row lists: each fails the gate. */
  readonly unlisted: UpgradeChange[];
  /** Hazards a row lists, with the row. */
  readonly listed: Array<{ change: UpgradeChange; row: ListedBreak }>;
  /** Rows written against this baseline that match no change: stale or mistyped, each fails the gate. */
  readonly unmatched: ListedBreak[];
  /** Everything else: updates in place, additions, removals of what holds nothing. */
  readonly passing: UpgradeChange[];
}

/** Sorts the changes into what passes, what a row lists and what fails. */
export function judge(
  changes: readonly UpgradeChange[],
  rows: readonly ListedBreak[],
  baselineCommit: string,
): UpgradeVerdict {
  const used = new Set<ListedBreak>();
  const unlisted: UpgradeChange[] = [];
  const listed: Array<{ change: UpgradeChange; row: ListedBreak }> = [];
  for (const change of changes.filter((c) => c.hazard !== undefined)) {
    const row = rows.find((r) => covers(r, change, baselineCommit));
    if (row) {
      used.add(row);
      listed.push({ change, row });
    } else {
      unlisted.push(change);
    }
  }
  return {
    unlisted,
    listed,
    unmatched: rows.filter((row) => baselineCommit.startsWith(row.baseline) && !used.has(row)),
    passing: changes.filter((c) => c.hazard === undefined),
  };
}
