#pragma once
// The scheduling policies as one table (issue #44 item 6): each policy's
// id, the name plans, files and the CLI use, what the papers call it, what
// it does and which of its traits other stages depend on. The CLI's help,
// the studio's policy box and tooltips, the Compare window and the pipeline
// read this table instead of comparing names with string literals, so a
// policy is added here once (and its class in makePolicy, policy.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/diagnostic.h"

namespace rammer::schedule {

enum class PolicyId { Sequential, Wavefront, Greedy, Ios, GraphTurbo, Dynamic };

struct PolicyInfo {
  PolicyId id;
  std::string_view name;   // "wavefront": what a Plan records and --policy takes
  std::string_view alias;  // another name --policy accepts ("rammer"), or empty
  std::string_view paper;  // "Rammer": the system or paper the policy stands for
  std::string_view description;  // one sentence, for help texts and tooltips
  // Every rTask placed on a vEU at compile time (all but dynamic, which
  // refuses a pin to a vEU).
  bool placesStatically = true;
  // Rewrites the operators it schedules (IOS's operator merge, GraphTurbo's
  // fused groups), so it takes plain Convs: epilogue fusion is off by
  // default under it (pipeline::fusesEpilogues).
  bool rewritesOperators = false;
  // One ordinary kernel per operator (RammerBase): the baseline speedups are
  // measured against, generated as plain launches when asked.
  bool isBaseline = false;
};

// One of a policy's own options: the CLI's flag, the studio's label and
// tooltip, the values it takes and its default. The defaults are read from
// the policy's option struct (IosOptions, GraphTurboOptions), so each is
// written once.
struct PolicyOption {
  std::string flag;         // "ios-r": --ios-r
  std::string label;        // "Operators per group": the studio's row
  std::string description;  // the help text and tooltip
  std::vector<std::string> choices;  // the values a named option takes; empty for a number
  std::string defaultValue;          // as text; empty where the device decides

  bool accepts(std::string_view value) const;
  std::string choiceList() const;  // "parallel, merge, both"
};

// The policy a plan gets when nobody chose one.
inline constexpr PolicyId kDefaultPolicy = PolicyId::Wavefront;

// Every policy, in the order menus and comparisons list them.
const std::vector<PolicyInfo>& policyRegistry();
// Their ids, in that order.
std::vector<PolicyId> policyIds();
const PolicyInfo& policyInfo(PolicyId id);
// The policy `name` names (its name or alias, any case); nullopt otherwise.
std::optional<PolicyId> findPolicy(std::string_view name);
// The registry's entry for a name a plan or a request holds; nullptr for an
// unknown name.
const PolicyInfo* policyNamed(std::string_view name);
std::string policyName(PolicyId id);
// The policy `name` names, or an error that lists every policy: how a
// name a person typed (--policy, the studio's command line) becomes a
// PolicyId.
ir::Result<PolicyId> parsePolicy(std::string_view name);
// A policy's own options, in the order help texts list them (most
// policies have none).
const std::vector<PolicyOption>& policyOptions(PolicyId id);
// The option of `id` named `flag`; std::out_of_range for an unknown one.
const PolicyOption& policyOption(PolicyId id, std::string_view flag);
// kDefaultPolicy's name, for the defaults of option structs.
std::string defaultPolicyName();

}  // namespace rammer::schedule
