// A browser wallet for tests, injected before the page loads (page.addInitScript). It registers through
// the Wallet Standard like a real extension, holds an ed25519 key pair (WebCrypto), signs in the page
// and sends through a binding the test exposes, as an extension sends through its background process
// (the page's Content-Security-Policy does not apply to it).
// Options: { name, address, publicKey (base64), pkcs8 (base64), chains, decline, sendBinding }.
// biome-ignore lint/correctness/noUnusedVariables: the harness appends the call with this test's options.
function installVaultkeeperTestWallet(options) {
  const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const toBase64 = (bytes) => btoa(String.fromCharCode(...bytes));
  const publicKey = fromBase64(options.publicKey);
  const keyPromise = crypto.subtle.importKey('pkcs8', fromBase64(options.pkcs8), { name: 'Ed25519' }, false, [
    'sign',
  ]);
  const sign = async (bytes) =>
    new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, await keyPromise, bytes));
  const calls = [];
  const state = { decline: options.decline === true };

  function refuse(what) {
    const error = new Error(`User rejected the ${what} request`);
    error.code = 4001;
    throw error;
  }

  const readCompactU16 = (bytes, offset) => {
    let value = 0;
    let size = 0;
    for (;;) {
      const byte = bytes[offset + size];
      value |= (byte & 0x7f) << (7 * size);
      size += 1;
      if ((byte & 0x80) === 0) return [value, size];
    }
  };

  /** Signs our slot of a wire transaction: signature count, signatures, then the message. */
  async function signWire(wire) {
    const [count, countSize] = readCompactU16(wire, 0);
    const messageStart = countSize + 64 * count;
    const message = wire.subarray(messageStart);
    const headerAt = message[0] & 0x80 ? 1 : 0;
    const required = message[headerAt];
    const [, keysSize] = readCompactU16(message, headerAt + 3);
    const keysStart = headerAt + 3 + keysSize;
    for (let i = 0; i < required; i++) {
      const key = message.subarray(keysStart + 32 * i, keysStart + 32 * (i + 1));
      if (key.every((b, j) => b === publicKey[j])) {
        const signed = new Uint8Array(wire);
        signed.set(await sign(message), countSize + 64 * i);
        return signed;
      }
    }
    throw new Error('this wallet is not a signer of the transaction');
  }

  const account = Object.freeze({
    address: options.address,
    publicKey,
    chains: options.chains,
    features: ['solana:signAndSendTransaction', 'solana:signMessage'],
    label: options.name,
  });
  const listeners = new Set();
  const wallet = {
    version: '1.0.0',
    name: options.name,
    icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAzMiAzMiI+PHJlY3Qgd2lkdGg9IjMyIiBoZWlnaHQ9IjMyIiByeD0iOCIgZmlsbD0iIzViM2ZkOSIvPjwvc3ZnPg==',
    chains: options.chains,
    accounts: [],
    features: {
      'standard:connect': {
        version: '1.0.0',
        async connect() {
          calls.push({ feature: 'standard:connect' });
          if (state.decline) refuse('connect');
          wallet.accounts = [account];
          for (const listener of listeners) listener({ accounts: wallet.accounts });
          return { accounts: wallet.accounts };
        },
      },
      'standard:disconnect': {
        version: '1.0.0',
        async disconnect() {
          wallet.accounts = [];
        },
      },
      'standard:events': {
        version: '1.0.0',
        on(event, listener) {
          if (event !== 'change') return () => {};
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
      'solana:signAndSendTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        async signAndSendTransaction(...inputs) {
          const outputs = [];
          for (const input of inputs) {
            calls.push({
              feature: 'solana:signAndSendTransaction',
              chain: input.chain,
              account: input.account.address,
            });
            if (state.decline) refuse('transaction');
            const signed = await signWire(input.transaction);
            await window[options.sendBinding](toBase64(signed));
            const [, countSize] = readCompactU16(signed, 0);
            outputs.push({ signature: signed.slice(countSize, countSize + 64) });
          }
          return outputs;
        },
      },
      'solana:signMessage': {
        version: '1.0.0',
        async signMessage(...inputs) {
          const outputs = [];
          for (const input of inputs) {
            calls.push({ feature: 'solana:signMessage', text: new TextDecoder().decode(input.message) });
            if (state.decline) refuse('message');
            outputs.push({ signedMessage: input.message, signature: await sign(input.message) });
          }
          return outputs;
        },
      },
    },
  };

  window.__vaultkeeperTestWallet = { calls, state };
  const callback = ({ register }) => register(wallet);
  // The standard's handshake, both ways: announce now, and answer an app that says it is ready.
  window.addEventListener('wallet-standard:app-ready', (event) => callback(event.detail));
  const announce = new Event('wallet-standard:register-wallet', {
    bubbles: false,
    cancelable: false,
    composed: false,
  });
  Object.defineProperty(announce, 'detail', { value: callback });
  window.dispatchEvent(announce);
}
