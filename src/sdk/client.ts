// `vaultkeeper/client`: the @vaultkeeper/client package, for code that imports it from the server package.
export * from '@vaultkeeper/client';
