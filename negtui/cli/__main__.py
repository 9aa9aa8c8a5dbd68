from negtui.cli import main

main()
