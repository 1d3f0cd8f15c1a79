print("reencode")
