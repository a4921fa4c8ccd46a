import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { specSectionFor, specSections } from '../../../roles/spec-section.js';
import { TODO_FEATURES } from '../../../testkit/policies/todo-features.js';

const TODO_SPEC = fs.readFileSync(
  path.join(import.meta.dirname, '../../../examples/todo/app_spec.md'),
  'utf8',
);

const SHOP_SPEC = `# Shop

An online shop for one small bakery.

## Catalogue

Products are listed with a photo, a name and a price. A search box filters products by name.

## Cart

### Adding items

A product page has an "Add to cart" button; the cart icon shows the number of items.

### Checkout

The checkout form asks for a name and an email, then shows an order number.

\`\`\`
# not a heading: inside a fence
\`\`\`

## Accounts

Out of scope for now.
`;

describe('specSectionFor', () => {
  it('points every feature of the todo example at its own numbered item under Features', () => {
    TODO_FEATURES.forEach((feature, index) => {
      const section = specSectionFor(TODO_SPEC, feature);
      expect(section?.heading, feature.description).toBe('Todo app › Features');
      expect(section?.excerpt.startsWith(`${index + 1}. **`), feature.description).toBe(true);
    });
  });

  it('finds a nested section by its heading and gives its line and heading path', () => {
    const section = specSectionFor(SHOP_SPEC, {
      category: 'functional',
      description: 'Checkout: the form takes a name and an email and shows an order number',
    });
    expect(section).toEqual({
      heading: 'Shop › Cart › Checkout',
      line: 15,
      excerpt: 'The checkout form asks for a name and an email, then shows an order number.',
    });
    expect(
      specSectionFor(SHOP_SPEC, { category: 'search', description: 'Search products by name' })?.heading,
    ).toBe('Shop › Catalogue');
  });

  it('gives nothing when no section shares a word with the feature', () => {
    expect(specSectionFor(SHOP_SPEC, { category: 'misc', description: 'Dark mode toggle' })).toBeUndefined();
    expect(specSectionFor('', { category: 'functional', description: 'Add a todo' })).toBeUndefined();
  });

  it('cuts a long excerpt', () => {
    const spec = `## Notes\n\n${'note '.repeat(500)}\n`;
    const section = specSectionFor(spec, { category: 'docs', description: 'notes' }, 100);
    expect(section?.excerpt).toHaveLength(102);
    expect(section?.excerpt.endsWith(' …')).toBe(true);
  });

  it('works on a spec without headings, pointing at the matching paragraph', () => {
    const spec =
      'A timer app.\n\nThe alarm rings when the countdown reaches zero.\n\nThemes are out of scope.\n';
    expect(specSectionFor(spec, { category: 'functional', description: 'Alarm rings at zero' })).toEqual({
      heading: '(before the first heading)',
      line: 3,
      excerpt: 'The alarm rings when the countdown reaches zero.',
    });
  });
});

describe('specSections', () => {
  it('ignores headings inside code fences and splits list items into blocks', () => {
    const sections = specSections(SHOP_SPEC);
    expect(sections.map((section) => section.heading)).toEqual([
      'Shop',
      'Shop › Catalogue',
      'Shop › Cart',
      'Shop › Cart › Adding items',
      'Shop › Cart › Checkout',
      'Shop › Accounts',
    ]);
    const features = specSections(TODO_SPEC).find((section) => section.heading.endsWith('Features'));
    expect(features?.blocks).toHaveLength(8);
  });
});
