// esbuild options of every browser bundle: the owner pages (build-web.mjs) and the SDK size check (sdk-size.mjs).
export const BROWSER_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  write: false,
  // The workspace packages from their TypeScript sources: no build needed first.
  conditions: ['vaultkeeper-source'],
};
