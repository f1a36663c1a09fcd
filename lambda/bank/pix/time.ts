/**
 * How the Pix family reads a `horario`: RFC 3339 with its zone, as the standard writes it; a
 * date-time written without a zone is read in Brasília's (America/Sao_Paulo, the providers' zone
 * and the bank days' rule, three hours behind UTC all year since 2019), never in the host's, and
 * said to be so. What is not a date-time of the calendar at all is refused.
 */

/** A date-time, its zone optional; `T` or one space between date and time. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** Brasília's offset as RFC 3339 writes it. */
export const BRASILIA_ZONE = '-03:00';

export interface PixTime {
  /** The time with its zone: as written when it had one, else with Brasília's appended. */
  readonly at: string;
  /** Whether the zone was assumed (the provider wrote none). */
  readonly zoneAssumed: boolean;
}

/** The date-time `text` names, or undefined when it is none (a month 20, a 31st of February, no time). */
export function readPixTime(text: unknown): PixTime | undefined {
  if (typeof text !== 'string') return undefined;
  const m = DATE_TIME.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '00'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const zoneAssumed = m[8] === undefined;
  const at = zoneAssumed ? `${text.trim()}${BRASILIA_ZONE}` : text.trim();
  return Number.isFinite(Date.parse(at.replace(' ', 'T'))) ? { at, zoneAssumed } : undefined;
}
