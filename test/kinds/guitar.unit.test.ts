import { renderChildren } from '../../src/core/render';
import { guitarKind, KNOWN_BRANDS, reviewBrand } from '../../src/kinds/guitar';
import { EMPTY_FORM, listPage } from '../../src/ui/page';

describe('Guitar review', () => {
  it.each(['fender', 'Fender', '  GIBSON ', 'coleclark', 'washburn'])('finds %j great', (brand) => {
    expect(reviewBrand(brand).verdict).toBe('great');
  });
  it.each(['epiphone', 'PRS', ' Taylor', 'yamaha'])('finds %j not great, politely', (brand) => {
    const review = reviewBrand(brand);
    expect(review.verdict).toBe('not great');
    expect(review.comment).toMatch(/any guitar played with love/);
  });
  it('does not know other brands, and says so', () => {
    expect(reviewBrand('Harmony')).toEqual({ verdict: 'unknown', comment: 'We have not reviewed harmony guitars yet; tell us how it plays.' });
  });
  // The original operator's two lists, as its controller and its web form had them.
  const ORIGINAL_GREAT = ['coleclark', 'fender', 'gibson', 'ibanez', 'martin', 'seagull', 'squier', 'washburn'];
  const ORIGINAL_NOT_GREAT = ['epiphone', 'guild', 'gretsch', 'jackson', 'ovation', 'prs', 'rickenbauer', 'taylor', 'yamaha'];
  it.each([...ORIGINAL_GREAT.map((b) => [b, 'great']), ...ORIGINAL_NOT_GREAT.map((b) => [b, 'not great'])])('keeps the original\u2019s verdict on %s (%s)', (brand, verdict) => {
    expect(reviewBrand(brand).verdict).toBe(verdict);
    expect(reviewBrand(` ${brand.toUpperCase()} `).verdict).toBe(verdict);
  });
  it('finds rickenbacker not great in the right spelling too', () => {
    expect(reviewBrand('Rickenbacker').verdict).toBe('not great');
  });
  it('offers every brand the original\u2019s web form offered, and the right spelling of rickenbauer, sorted', () => {
    expect(KNOWN_BRANDS).toEqual([...ORIGINAL_GREAT, ...ORIGINAL_NOT_GREAT, 'rickenbacker'].sort());
    const page = listPage({ guitars: [], namespaces: [], forbidden: [], csrfToken: 't', form: EMPTY_FORM });
    for (const brand of [...ORIGINAL_GREAT, ...ORIGINAL_NOT_GREAT]) expect(page).toContain(`<option value="${brand}">`);
  });
  it('has no children: the review lives in status', () => {
    const guitar = { apiVersion: 'kool.karmalabs.local/v1', kind: 'Guitar', metadata: { name: 'g', namespace: 'n' }, spec: { brand: 'fender' } };
    expect(renderChildren(guitarKind, guitar)).toEqual([]);
  });
});
