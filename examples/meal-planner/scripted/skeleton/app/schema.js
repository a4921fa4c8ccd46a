// The database schema as a list of migrations, applied once each in this order (app/db.js records the applied
// ones in the `migrations` table). One line per migration: [unique name, SQL].
export const MIGRATIONS = [
  // -- schema: add migrations above this line --
];
