export interface MigrationResult {
  from: number;
  to: number;
}

export function assertMigrationsOrdered(migrations: readonly { version: number }[]): void {
  migrations.forEach((migration, index) => {
    const previous = index === 0 ? 0 : migrations[index - 1].version;
    const valid = Number.isInteger(migration.version) && (index === 0 ? migration.version === 1 : migration.version > previous);
    if (!valid) {
      throw new Error(`Migration versions must start at 1 and strictly increase; entry ${index} has version ${migration.version} after ${previous}.`);
    }
  });
}
