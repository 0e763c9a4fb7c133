import BadgeRules
