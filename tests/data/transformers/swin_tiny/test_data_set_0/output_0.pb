
BoutputJ(FJ<„½a¡= hg¼e ª¼ãj,»÷d¼è‰	<ˆËq<Œˆ½