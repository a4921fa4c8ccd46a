// Hook on /recipes/:id: "Servings to cook" scales the quantities at the start of each ingredient line
// ("200 g lentils" for 2 becomes "600 g lentils" for 6; "1/2 lemon" becomes "1.5 lemon").
import { html } from '../html.js';
import { recipePageParts } from './recipe-page.js';

const QUANTITY = /^(\d+\s+\d+\/\d+|\d+\/\d+|\d+(?:[.,]\d+)?)(?=\s|$)/;

function parseQuantity(text) {
  const mixed = /^(\d+)\s+(\d+)\/(\d+)$/.exec(text);
  if (mixed) return Number(mixed[1]) + Number(mixed[2]) / Number(mixed[3]);
  const fraction = /^(\d+)\/(\d+)$/.exec(text);
  if (fraction) return Number(fraction[1]) / Number(fraction[2]);
  return Number(text.replace(',', '.'));
}

function formatQuantity(value) {
  return String(Math.round(value * 100) / 100);
}

export function scaleLine(line, factor) {
  const match = QUANTITY.exec(line);
  if (!match) return line;
  return `${formatQuantity(parseQuantity(match[1]) * factor)}${line.slice(match[1].length)}`;
}

export function before(ctx) {
  if (ctx.method !== 'GET') return;
  const parts = recipePageParts(ctx);
  const asked = Number.parseInt(ctx.query.get('servings') ?? '', 10);
  parts.aboveIngredients.push((recipe) => {
    const servings = asked >= 1 && asked <= 100 ? asked : recipe.servings;
    const note =
      servings === recipe.servings
        ? ''
        : html`<p>Ingredients for ${servings} servings (the recipe makes ${recipe.servings}).</p>`;
    return html`<form method="get" action="/recipes/${recipe.id}" aria-label="Scale">
<p><label for="scale-servings">Servings to cook</label> <input id="scale-servings" type="number" name="servings" min="1" max="100" value="${servings}"> <button type="submit">Scale</button></p>
</form>${note}`;
  });
  if (!(asked >= 1 && asked <= 100)) return;
  parts.ingredients.push((lines, recipe) => lines.map((line) => scaleLine(line, asked / recipe.servings)));
}
