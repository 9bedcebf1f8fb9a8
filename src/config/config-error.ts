// A configuration that cannot run, with every problem it has (config.ts).

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(variable: string, problem: string);
  constructor(problems: string[]);
  constructor(variable: string | string[], problem?: string) {
    const problems = Array.isArray(variable) ? variable : [`Invalid configuration: ${variable} ${problem}`];
    super(problems.join('\n'));
    this.problems = problems;
  }
}
