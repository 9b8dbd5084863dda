"""Filter rules: non-article, C4 and Gopher checks with reason codes, at page and segment level."""

from .base import KEEP, Rule, RuleResult, TextUnit, apply_rules, evaluate_rules
from .rules import RULES, build_rule, rule_names, rules_from_config

__all__ = ["KEEP", "Rule", "RuleResult", "TextUnit", "apply_rules", "evaluate_rules", "RULES",
           "build_rule", "rule_names", "rules_from_config"]
