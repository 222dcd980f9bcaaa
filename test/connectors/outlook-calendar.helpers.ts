/** Dates and zones for the Outlook calendar tests, computed independently of the code under test. */

/** The UTC date `n` days from today, YYYY-MM-DD (the Graph sandbox seeds relative to today's UTC midnight). */
export const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** Wall-clock time of an instant in a zone. */
export function wall(ms: number, zone: string): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(ms)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}

/** The instant a wall-clock time in a zone stands for. */
export function utcOf(local: string, zone: string): number {
  let t = Date.parse(`${local}Z`);
  for (let i = 0; i < 3; i++) t += Date.parse(`${local}Z`) - Date.parse(`${wall(t, zone)}Z`);
  return t;
}

/** A half-hour UTC meeting at 09:00, `d` days from today. */
export const meeting = (subject: string, d: number, extra: Record<string, unknown> = {}) => ({
  subject,
  start: { dateTime: `${day(d)}T09:00:00`, timeZone: 'UTC' },
  end: { dateTime: `${day(d)}T09:30:00`, timeZone: 'UTC' },
  ...extra,
});
