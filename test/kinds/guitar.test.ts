import { renderChildren } from '../../src/core/render';
import { guitarKind, KNOWN_BRANDS, reviewBrand } from '../../src/kinds/guitar';

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
  it('knows the seventeen brands of the original, sorted for the web form', () => {
    expect(KNOWN_BRANDS).toHaveLength(17);
    expect([...KNOWN_BRANDS].sort()).toEqual(KNOWN_BRANDS);
  });
  it('has no children: the review lives in status', () => {
    const guitar = { apiVersion: 'kool.karmalabs.local/v1', kind: 'Guitar', metadata: { name: 'g', namespace: 'n' }, spec: { brand: 'fender' } };
    expect(renderChildren(guitarKind, guitar)).toEqual([]);
  });
});
