import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// An API report per package entry, so that every change to a public
// surface shows in review as a change to test/package/api/*.api.txt (update with `vitest -u`). Each line
// is one export: its kind, its name and, for values, its type as the compiler prints it.

/** Package entries and their source files. */
const ENTRIES: Readonly<Record<string, string>> = {
  difftry: 'src/index.ts',
  'difftry/model': 'src/model/index.ts',
  'difftry/sim': 'src/sim/index.ts',
  'difftry/config': 'src/config/index.ts',
  'difftry/deploy': 'src/deploy/index.ts',
  'difftry/mesh': 'src/mesh/index.ts',
  'difftry/grpc': 'src/runtime/grpc.ts',
  'difftry/xds': 'src/xds/index.ts',
  'difftry/report': 'src/report/index.ts',
  'difftry/experiments': 'src/experiments/index.ts',
  'difftry/ui': 'src/ui/index.ts',
};

/** `difftry/config`'s entry for the `browser` condition (package.json), which reads no file. */
const SPEC_BROWSER = 'src/config/browser.ts';

/** What `difftry/config` exports that its browser entry cannot: the file readers, with their modules. */
const SPEC_NODE_ONLY = [
  'BUILTIN_EXAMPLE_NAMES',
  'builtinExample',
  'checkSidecarConfig',
  'loadNetworkFile',
  'loadScheduleFile',
  'loadSidecarConfigFile',
  'parseSchedule',
  'parseSidecarConfig',
];

const program = ts.createProgram([...Object.values(ENTRIES), SPEC_BROWSER], {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  skipLibCheck: true,
  noEmit: true,
});
const checker = program.getTypeChecker();

function kindOf(symbol: ts.Symbol): string {
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Variable) return 'const';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  return 'other';
}

/** The exports of `file`, with the source file they are read in. */
function exportsOf(file: string): { source: ts.SourceFile; exports: ts.Symbol[] } {
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`no source file ${file}`);
  const module = checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${file} is not a module`);
  return { source, exports: checker.getExportsOfModule(module) };
}

/** One line per export of `file`, sorted by name. */
function apiReport(file: string): string {
  const { source, exports } = exportsOf(file);
  const lines = exports.map((exported) => {
    const symbol =
      exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const kind = kindOf(symbol);
    const isValue = (symbol.flags & ts.SymbolFlags.Value) !== 0;
    const type = isValue
      ? checker.typeToString(
          checker.getTypeOfSymbol(symbol),
          source,
          ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope,
        )
      : '';
    return `${kind} ${exported.name}${type === '' ? '' : `: ${type}`}`;
  });
  return `${lines.sort((a, b) => nameOf(a).localeCompare(nameOf(b))).join('\n')}\n`;
}

function nameOf(line: string): string {
  return line.split(' ')[1]?.replace(/:$/, '') ?? line;
}

describe('API reports', { timeout: 60_000 }, () => {
  for (const [entry, file] of Object.entries(ENTRIES)) {
    it(`${entry} exports what test/package/api/${entry.replace('/', '-')}.api.txt says`, async () => {
      await expect(apiReport(file)).toMatchFileSnapshot(`${entry.replace('/', '-')}.api.txt`);
    });
  }

  it("difftry/config's browser entry exports all of difftry/config but the file readers", () => {
    const names = (file: string) => exportsOf(file).exports.map((e) => e.name);
    const browser = names(SPEC_BROWSER);
    expect(browser.filter((name) => SPEC_NODE_ONLY.includes(name))).toStrictEqual([]);
    expect([...browser, ...SPEC_NODE_ONLY].sort()).toStrictEqual(
      names('src/config/index.ts').sort(),
    );
  });
});
