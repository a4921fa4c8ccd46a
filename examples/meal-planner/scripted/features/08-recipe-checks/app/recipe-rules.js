// What a recipe must be: sensible numbers and at least one ingredient.

export function servingsProblem(recipe) {
  const ok = Number.isInteger(recipe.servings) && recipe.servings >= 1 && recipe.servings <= 50;
  return ok ? undefined : 'Servings must be a whole number from 1 to 50.';
}

export function minutesProblem(recipe) {
  const ok = Number.isInteger(recipe.minutes) && recipe.minutes >= 0 && recipe.minutes <= 1440;
  return ok ? undefined : 'Time must be a whole number of minutes from 0 to 1440.';
}

export function ingredientsProblem(recipe) {
  return recipe.ingredients.trim() ? undefined : 'Add at least one ingredient.';
}
