/**
 * A PostgreSQL connection string as messages and the banner name it: host,
 * port and database, never the user's password (README, "Deploy").
 */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'the database';
  }
}
