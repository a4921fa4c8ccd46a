// Recipes in the database. Ingredients are kept as text, one per line, as the cook typed them.

export function ingredientLines(recipe) {
  return String(recipe.ingredients ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

export function ownRecipe(db, userId, id) {
  return db.get('SELECT * FROM recipes WHERE id = ? AND user_id = ?', [Number(id), userId]);
}

export function createRecipe(db, userId, fields) {
  const now = new Date().toISOString();
  return db.run(
    'INSERT INTO recipes (user_id, title, servings, minutes, ingredients, method, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [userId, fields.title, fields.servings, fields.minutes, fields.ingredients, fields.method, now, now],
  );
}

export function recipeFacts(recipe) {
  return `Serves ${recipe.servings} · Ready in ${recipe.minutes} minutes`;
}
