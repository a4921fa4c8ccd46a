// Recipes in the database. Ingredients are kept as text, one per line, as the cook typed them.

/** Columns other features add to recipes; saved whenever the fields given carry them. */
export const EXTRA_COLUMNS = [
  // -- recipe columns: add above this line --
];

const BASE_COLUMNS = ['title', 'servings', 'minutes', 'ingredients', 'method'];

export function ingredientLines(recipe) {
  return String(recipe.ingredients ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

export function ownRecipe(db, userId, id) {
  return db.get('SELECT * FROM recipes WHERE id = ? AND user_id = ?', [Number(id), userId]);
}

/** The columns of `fields` that are saved: the base ones and the extra ones present. */
export function savedColumns(fields) {
  return [...BASE_COLUMNS, ...EXTRA_COLUMNS.filter((column) => fields[column] !== undefined)];
}

export function createRecipe(db, userId, fields) {
  const now = new Date().toISOString();
  const columns = savedColumns(fields);
  const marks = columns.map(() => '?').join(', ');
  return db.run(
    `INSERT INTO recipes (user_id, ${columns.join(', ')}, created_at, updated_at) VALUES (?, ${marks}, ?, ?)`,
    [userId, ...columns.map((column) => fields[column]), now, now],
  );
}

export function recipeFacts(recipe) {
  return `Serves ${recipe.servings} · Ready in ${recipe.minutes} minutes`;
}
