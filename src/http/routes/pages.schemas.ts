import { Type } from '@fastify/type-provider-typebox';

// Loose on purpose: a mistyped link still gets the page, which explains what is wrong with it.
const Segment = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

export const OverridePageParams = Type.Object({
  vault: Segment('the vault address'),
  nonce: Segment('the override nonce'),
});

export const VaultPageParams = Type.Object({ address: Segment('the vault address') });

export const OwnerPageParams = Type.Object({ address: Segment("the owner's wallet address") });

export const AssetParams = Type.Object({
  file: Type.String({ pattern: '^[a-z0-9-]+\\.(js|css)$', maxLength: 64, description: 'a built asset' }),
});

export const AssetQuery = Type.Object({
  v: Type.Optional(Type.String({ maxLength: 64, description: 'content hash: the URL then never changes' })),
});

export const HtmlPage = {
  description: 'HTML page',
  content: { 'text/html': { schema: { type: 'string' } } },
} as const;
