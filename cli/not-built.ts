import type { Command } from 'commander';

/** Registers a command that exists in the design but is not built yet: it says so and exits 2. */
export function registerPlaceholder(program: Command, name: string, description: string): void {
  program
    .command(name)
    .description(`${description} (not built yet)`)
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      process.stderr.write(`nightshift ${name}: not built yet in this version.\n`);
      process.exitCode = 2;
    });
}
