// `vaultkeeper/webhooks`: the @vaultkeeper/webhooks package, for code that imports it from the server package.
export * from '@vaultkeeper/webhooks';
