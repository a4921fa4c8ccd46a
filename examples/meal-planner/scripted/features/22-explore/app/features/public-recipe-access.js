// Hook on /recipes/:id: a public recipe may be seen by every signed-in user (only its owner may change it).
import { recipePageParts } from './recipe-page.js';

export function before(ctx) {
  recipePageParts(ctx).visibleTo.push((recipe) => recipe.visibility === 'public');
}
