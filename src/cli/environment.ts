// What a command reads from its environment: the service's configuration, and the API an owner command
// acts through.
import { type Config, ConfigError, loadConfig, readClientEnvironment } from '../config.js';
import { type ApiAccess, resolveApiAccess, type Values } from './api-commands.js';
import { CliError, EXIT } from './output.js';

/** The service's configuration; an invalid one is a CliError that exits 3. */
export function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new CliError(error.message, EXIT.config, 'fix the variables named (docs/CONFIGURATION.md)');
    }
    throw error;
  }
}

/** The API URL and key of an owner command (PUBLIC_BASE_URL only read when neither flag nor env names one). */
export const apiAccess = (values: Values): ApiAccess => {
  const access = resolveApiAccess(values, readClientEnvironment(), () => config().publicBaseUrl);
  process.stderr.write(`vaultkeeper: acting through the service at ${access.baseUrl}\n`);
  return access;
};
