import BadgeCommands

Badgectl.main()
