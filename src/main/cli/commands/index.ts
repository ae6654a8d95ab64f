import type { CliCommand } from '../command';

/** Every `caplab` subcommand, in --help order. One line per command module. */
export const commands: CliCommand[] = [];
