//===- LaunchGraph.cpp - a sequence of launches as one CUDA graph ---------===//
//
// Measured on an H100's host (session 49): three programmatic dependent
// launches took 8.3-8.7 us, one graph of the same three kernels with each
// node's parameters set again 3.4-3.6 us. The graph is built from its nodes
// and edges (not captured), so that the nodes are known in launch order.
//
//===----------------------------------------------------------------------===//
#include "../cuda/CudaDriver.h"
#include "PreparedLaunch.h"
#include "tilemla/Runtime.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <utility>

namespace tilemla {
using namespace cuda;
using launch::PreparedLaunch;

namespace {
/// One instantiated graph and what it was made for.
struct MadeGraph {
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  CUcontext context = nullptr;
  std::vector<CUgraphNode> nodes;
  /// Each node's function and dependence.
  std::vector<std::pair<CUfunction, bool>> shape;
  uint64_t lastUse = 0;

  MadeGraph() = default;
  MadeGraph(const MadeGraph &) = delete;
  MadeGraph &operator=(const MadeGraph &) = delete;
  ~MadeGraph() { release(); }

  bool fits(const PreparedLaunch *launches, size_t count,
            CUcontext current) const {
    if (!exec || context != current || shape.size() != count)
      return false;
    for (size_t i = 0; i < count; ++i)
      if (shape[i] !=
          std::make_pair(launches[i].function, launches[i].dependent))
        return false;
    return true;
  }

  void release() {
    if (exec)
      driver().cuGraphExecDestroy(exec); // no throwing
    if (graph)
      driver().cuGraphDestroy(graph);
    exec = nullptr, graph = nullptr, context = nullptr;
    nodes.clear(), shape.clear();
  }

  void build(const PreparedLaunch *launches, size_t count, CUcontext current) {
    release();
    const DriverApi &api = driver();
    TILEMLA_CU(cuGraphCreate, "a launch graph", &graph, 0u);
    for (size_t i = 0; i < count; ++i) {
      const CUDA_KERNEL_NODE_PARAMS_v2 params = launches[i].nodeParams();
      CUgraphNode node = nullptr;
      check(api.cuGraphAddKernelNode(&node, graph, nullptr, 0, &params),
            "cuGraphAddKernelNode", "kernel " + *launches[i].name);
      if (!nodes.empty()) {
        CUgraphEdgeData edge = {};
        if (launches[i].dependent) {
          edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
          edge.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
        }
        check(api.cuGraphAddDependencies(graph, &nodes.back(), &node, &edge, 1),
              "cuGraphAddDependencies", "kernel " + *launches[i].name);
      }
      nodes.push_back(node);
      shape.emplace_back(launches[i].function, launches[i].dependent);
    }
    TILEMLA_CU(cuGraphInstantiateWithFlags, "a launch graph", &exec, graph,
               0ull);
    context = current;
  }

  /// Grids and arguments may change; the kernels and edges do not.
  void update(const PreparedLaunch *launches, size_t count) {
    const DriverApi &api = driver();
    for (size_t i = 0; i < count; ++i) {
      const CUDA_KERNEL_NODE_PARAMS_v2 params = launches[i].nodeParams();
      check(api.cuGraphExecKernelNodeSetParams(exec, nodes[i], &params),
            "cuGraphExecKernelNodeSetParams", "kernel " + *launches[i].name);
    }
  }
};

} // namespace

/// A caller whose sequences alternate between a few sets of kernels (a
/// decode batch that crosses the device schedule's threshold and back)
/// keeps a graph for each; the least recently used goes first.
struct LaunchGraph::Impl {
  std::array<MadeGraph, kMaxGraphs> graphs;
  uint64_t uses = 0;

  MadeGraph &graphFor(const PreparedLaunch *launches, size_t count) {
    CUcontext current = currentContext();
    MadeGraph *oldest = &graphs[0];
    for (MadeGraph &g : graphs) {
      if (g.fits(launches, count, current)) {
        g.update(launches, count);
        g.lastUse = ++uses;
        return g;
      }
      if (g.lastUse < oldest->lastUse)
        oldest = &g;
    }
    oldest->build(launches, count, current);
    oldest->lastUse = ++uses;
    return *oldest;
  }
};

LaunchGraph::LaunchGraph() : impl(std::make_unique<Impl>()) {}

LaunchGraph::~LaunchGraph() = default;

void LaunchGraph::launchEach(const Launch *launches, size_t count,
                             StreamHandle stream) {
  for (size_t i = 0; i < count; ++i)
    launches[i].kernel->launch(launches[i].grid, *launches[i].args, stream,
                               launches[i].options);
}

void LaunchGraph::launch(const Launch *launches, size_t count,
                         StreamHandle stream) {
  if (count > kMaxLaunches)
    throw Error(fmt::format("LaunchGraph: {} launches, at most {}", count,
                            kMaxLaunches));
  auto direct = [&] { launchEach(launches, count, stream); };
  if (isInterpreterMode() || !driver().cuGraphAddDependencies ||
      isStreamCapturing(stream))
    return direct();
  std::array<PreparedLaunch, kMaxLaunches> prepared;
  for (size_t i = 0; i < count; ++i) {
    const Launch &l = launches[i];
    if (!l.kernel->prepareLaunch(l.grid, *l.args, l.options, prepared[i]))
      return direct(); // an empty grid: no node for it
  }
  const MadeGraph &graph = impl->graphFor(prepared.data(), count);
  TILEMLA_CU(cuGraphLaunch, "a launch graph", graph.exec,
             static_cast<CUstream>(stream));
}

} // namespace tilemla
