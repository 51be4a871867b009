export * from './alerts.js';
export * from './auth.js';
export * from './chain.js';
export * from './metrics.js';
export * from './overrides.js';
export * from './transactions.js';
export * from './vaults.js';
export * from './webhooks.js';
