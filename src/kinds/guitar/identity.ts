/**
 * The Guitar's API identity, apart from its definition: the guitar UI's install and chart
 * companion name its collection with it, and the definition declares that companion, so that
 * neither imports the other's module.
 */
export const GUITAR_API = { group: 'kool.karmalabs.local', version: 'v1', kind: 'Guitar', plural: 'guitars' } as const;
