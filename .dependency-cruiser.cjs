/**
 * What may import what, checked by `npm run lint` (dependency-cruiser). Unlike ESLint's
 * no-cycle, it counts type-only imports: a type import that runs back up a layer is a wrong
 * arrow too. The picture is in docs/architecture.md.
 */
const CORE = '^src/main/core/';
/** A source's own folder (its implementation), as a capture group for "not another source"; ports/ is the contract they share. */
const SOURCE_FOLDER = '^src/main/core/sources/(?!ports/)([^/]+)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycle', severity: 'error', comment: 'No import cycle, type-only imports included.', from: {}, to: { circular: true } },
    {
      name: 'shared-is-pure',
      severity: 'error',
      comment: 'src/shared is the contract: it imports nothing of ours and no node builtins.',
      from: { path: '^src/shared/' },
      to: { pathNot: ['^src/shared/', '^node_modules/zod/'], dependencyTypesNot: ['type-only'] },
    },
    { name: 'shared-types-too', severity: 'error', from: { path: '^src/shared/' }, to: { path: '^src/(main|renderer|preload|cli)/' } },
    {
      name: 'core-never-electron',
      severity: 'error',
      comment: 'The core and the CLI run headless: only src/main/app may import electron.',
      from: { path: ['^src/main/core/', '^src/cli/', '^src/shared/', '^src/renderer/'] },
      to: { path: '^node_modules/electron/|^electron$' },
    },
    { name: 'core-not-app', severity: 'error', from: { path: CORE }, to: { path: ['^src/main/app/', '^src/cli/', '^src/renderer/', '^src/preload/'] } },
    { name: 'renderer-only-shared', severity: 'error', comment: 'The dashboard talks to the core through src/shared only.', from: { path: '^src/renderer/' }, to: { path: ['^src/main/', '^src/preload/', '^src/cli/'] } },
    { name: 'renderer-no-node', severity: 'error', from: { path: '^src/renderer/' }, to: { dependencyTypes: ['core'] } },
    { name: 'preload-transport-only', severity: 'error', from: { path: '^src/preload/' }, to: { path: ['^src/main/', '^src/renderer/'] } },

    // Inside the core, from the bottom up.
    { name: 'image-and-util-are-leaves', severity: 'error', from: { path: `${CORE}(image|util)/` }, to: { path: CORE, pathNot: `${CORE}(image|util)/` } },
    {
      name: 'catalog-below-sources',
      severity: 'error',
      comment: 'The catalog stores frames; it knows no source, service or protocol.',
      from: { path: `${CORE}catalog/` },
      to: { path: CORE, pathNot: [`${CORE}catalog/`, `${CORE}image/`, `${CORE}util/`] },
    },
    {
      name: 'sources-are-independent',
      severity: 'error',
      comment: 'A source folder never imports another source folder.',
      from: { path: SOURCE_FOLDER },
      to: { path: SOURCE_FOLDER, pathNot: '^src/main/core/sources/$1/' },
    },
    {
      name: 'sources-use-ports',
      severity: 'error',
      comment: 'A source sees its ports, the image pipeline, frame shapes, the action-definition kit (actionDefs.ts) and the tool kit; never the services, the catalog database, the server or the composition root.',
      from: { path: SOURCE_FOLDER },
      to: {
        path: CORE,
        pathNot: [
          SOURCE_FOLDER.replace('([^/]+)', '$1'),
          `${CORE}sources/(source|module|aim)\\.ts$`,
          `${CORE}sources/ports/`,
          `${CORE}(image|util)/`,
          `${CORE}catalog/(types|refs)\\.ts$`,
          `${CORE}mcp/(tool|schemas|response|action|sharedTools)\\.ts$`,
          `${CORE}actionDefs\\.ts$`,
          `${CORE}ports\\.ts$`,
          `${CORE}text/`,
        ],
      },
    },
    {
      name: 'sources-below-actions',
      severity: 'error',
      comment: 'The sources sit below the action service: a source (its ports and helpers included) defines its kinds with actionDefs.ts, never with anything in actions/.',
      from: { path: `${CORE}sources/` },
      to: { path: `${CORE}actions/` },
    },
    {
      name: 'action-contract-below-actions',
      severity: 'error',
      comment: 'How a kind is defined (actionDefs.ts) sits below both the action service and the sources: it imports neither the service nor a source.',
      from: { path: `${CORE}actionDefs\\.ts$` },
      to: { path: [`${CORE}actions/`, SOURCE_FOLDER] },
    },
    {
      name: 'ports-are-interfaces',
      severity: 'error',
      comment: 'ports.ts and the tool kit describe; they import no implementation.',
      from: { path: [`${CORE}ports\\.ts$`, `${CORE}sources/(source|module)\\.ts$`, `${CORE}sources/ports/`, `${CORE}mcp/tool\\.ts$`] },
      to: { path: [`${CORE}(frames|actions|settings|http|targets|core)`, `${CORE}sources/(registry|builtin)\\.ts$`, `${CORE}mcp/server\\.ts$`, `${CORE}catalog/(catalog|frames|archive|retention|activity)\\.ts$`] },
    },
    {
      name: 'services-below-protocols',
      severity: 'error',
      comment: 'Frames, actions and settings know nothing of MCP or HTTP.',
      from: { path: `${CORE}(frames|actions|settings|targets\\.ts)` },
      to: { path: `${CORE}(mcp|http|bridge)/` },
    },
    { name: 'mcp-below-http', severity: 'error', from: { path: `${CORE}mcp/` }, to: { path: `${CORE}(http|bridge)/` } },
    {
      name: 'tools-get-ports',
      severity: 'error',
      comment: 'A tool is handed ports; it never reaches the composition root, the registry or the catalog.',
      from: { path: [`${CORE}mcp/tools/`, `${CORE}sources/[^/]+/(module|tools)\\.ts$`] },
      to: { path: [`${CORE}core\\.ts$`, `${CORE}index\\.ts$`, `${CORE}sources/registry\\.ts$`, `${CORE}catalog/catalog\\.ts$`] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too (ESLint's no-cycle skips them).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.svelte'] },
    exclude: { path: ['^out/', '^node_modules/', '^bench/node_modules/'] },
  },
};
